import { expect } from 'chai';
import { policyCheck } from '../../../application/guarded-write/policy-check.js';
import type { KubeObject } from '../../../domain/cluster/kube-types.js';
import type { NamedPolicy } from '../../../domain/orgdata/policy-constraint.js';

const deployment = (image: string): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop' },
  spec: { template: { spec: { containers: [{ name: 'web', image }] } } },
});
const registry: NamedPolicy = {
  id: 'pol-1',
  description: 'images from our registry',
  constraints: [{ kind: 'Deployment', field: 'spec.template.spec.containers[].image', pattern: 'ghcr\\.io/acme/.*' }],
};

describe('application/guarded-write/policy-check: the object a write would leave, against the organisation policies', () => {
  it('passes an object that keeps every policy', () => {
    expect(policyCheck(deployment('ghcr.io/acme/web:2'), { policies: [registry] })).to.equal(undefined);
  });

  it('refuses one that breaks a policy, naming it', () => {
    const refusal = policyCheck(deployment('evil.example/miner:1'), { policies: [registry] });
    expect(refusal).to.deep.include({ reason: 'PolicyViolation', causes: [] });
    expect(refusal!.message).to.contain('images from our registry').and.contain('pol-1');
  });

  it('refuses every write when the policies could not all be read, even one that would keep them', () => {
    const refusal = policyCheck(deployment('ghcr.io/acme/web:2'), { policies: [registry], unreadable: 'the store did not answer' });
    expect(refusal).to.deep.include({ reason: 'PoliciesUnreadable' });
    expect(refusal!.message).to.contain('the store did not answer');
  });

  it('has nothing to check after a delete', () => {
    expect(policyCheck(null, { policies: [registry], unreadable: 'down' })).to.equal(undefined);
  });
});
