import { expect } from 'chai';
import { OrgPolicySource } from '../../../application/actions/policy-source.js';
import { policyOf } from '../../../application/deployment/org-context.js';
import { ValidationError } from '../../../domain/errors.js';
import { orgDataInputIssues } from '../../../domain/orgdata/org-data-operations.js';
import { orgDocumentInput } from '../../../domain/orgdata/org-documents.js';
import { checkPolicyClusters, policyAppliesIn, policyClustersSchema, type ClusterIdentity } from '../../../domain/orgdata/policy-clusters.js';
import { FakeEmbedder } from '../../support/fake-embedder.js';
import { FakeVectorStore } from '../../support/fake-vector-store.js';

const staging: ClusterIdentity = { name: 'staging', labels: { env: 'staging', region: 'eu' } };
const production: ClusterIdentity = { name: 'production', labels: { env: 'production', region: 'eu' } };
const FLEET = [staging, production];

describe('policy-clusters: a policy limited to some clusters', () => {
  it('applies everywhere without a limit, in a named cluster, in a cluster its selector matches (every label), and nowhere else', () => {
    expect(policyAppliesIn(undefined, production)).to.equal(true);
    expect(policyAppliesIn({ names: ['production'] }, production)).to.equal(true);
    expect(policyAppliesIn({ names: ['production'] }, staging)).to.equal(false);
    expect(policyAppliesIn({ selector: { env: 'production' } }, production)).to.equal(true);
    expect(policyAppliesIn({ selector: { env: 'production' } }, staging)).to.equal(false);
    expect(policyAppliesIn({ selector: { env: 'production', region: 'us' } }, production)).to.equal(false);
    expect(policyAppliesIn({ selector: { region: 'eu' } }, staging)).to.equal(true);
    // names or selector: either lets it apply
    expect(policyAppliesIn({ names: ['staging'], selector: { env: 'production' } }, production)).to.equal(true);
    expect(policyAppliesIn({ names: ['staging'], selector: { env: 'production' } }, staging)).to.equal(true);
    // names are matched exactly, as kubeconfig contexts are
    expect(policyAppliesIn({ names: ['Production'] }, production)).to.equal(false);
  });

  it('holds work whose cluster svc cannot name (one cluster, or no scope) to every policy, limited or not', () => {
    expect(policyAppliesIn({ names: ['production'] }, undefined)).to.equal(true);
    expect(policyAppliesIn({ selector: { env: 'production' } }, undefined)).to.equal(true);
  });

  it('the input schema wants names or a selector of 1 to 20 labels, in their syntax; only a policy takes it', () => {
    expect(policyClustersSchema.safeParse({ names: ['production'] }).success).to.equal(true);
    expect(policyClustersSchema.safeParse({ selector: { env: 'production' } }).success).to.equal(true);
    for (const bad of [{}, { names: [] }, { selector: {} }, { names: ['bad name'] }, { selector: { 'bad key!': 'x' } }, { other: 1 }])
      expect(policyClustersSchema.safeParse(bad).success, JSON.stringify(bad)).to.equal(false);
    const doc = { description: 'd', triggers: ['t'], rationale: 'r', suggestedResources: ['Deployment'], clusters: { names: ['staging'] } };
    expect(orgDocumentInput.safeParse(doc).success).to.equal(true);
    const issues = orgDataInputIssues({ dataType: 'pattern', operation: 'create', document: doc });
    expect(issues).to.deep.equal([{ path: ['document', 'clusters'], message: 'only a policy is limited to clusters' }]);
  });

  it('checkPolicyClusters refuses, naming the choices: any limit with one cluster, an unknown or other-case name, a selector matching nothing', () => {
    const refusal = (limit: object, clusters?: readonly ClusterIdentity[]) => {
      try {
        checkPolicyClusters(limit, clusters);
      } catch (e) {
        expect(e).to.be.instanceOf(ValidationError);
        return (e as Error).message;
      }
      return undefined;
    };
    expect(refusal({ names: ['production'] })).to.contain('SVC_CLUSTERS is not set');
    expect(refusal({ names: ['qa', 'Production'] }, FLEET)).to.equal('"qa", "Production" are not clusters svc serves (one of staging, production)');
    expect(refusal({ selector: { env: 'qa' } }, FLEET)).to.match(/^no cluster matches selector \{"env":"qa"\}: the policy would apply nowhere/);
    expect(refusal({ names: ['production'], selector: { region: 'eu' } }, FLEET)).to.equal(undefined);
    expect(() => checkPolicyClusters(undefined, undefined)).to.not.throw();
  });
});

describe('OrgPolicySource with a fleet: what a write in the current cluster is checked against, and what the model is shown', () => {
  const point = (id: string, clusters?: unknown) => ({
    id,
    vector: [1, 2, 3, 4],
    payload: { description: `policy ${id}`, constraints: [{ kind: 'Deployment', field: 'spec.replicas', maximum: 3 }], ...(clusters ? { clusters } : {}) },
  });
  const source = async (here: ClusterIdentity | undefined) => {
    const store = new FakeVectorStore();
    await store.ensureCollection('policies', { dimension: 4, distance: 'cosine' });
    await store.upsert('policies', [
      point('everywhere'),
      point('prod-by-name', { names: ['production'] }),
      point('prod-by-label', { selector: { env: 'production' } }),
      point('staging-only', { names: ['staging'] }),
      // a damaged limit is dropped: the policy holds everywhere rather than nowhere
      point('damaged-limit', { names: 'production' }),
    ]);
    return new OrgPolicySource(store, new FakeEmbedder(), () => here);
  };
  const ids = (ps: { id: string }[]) => ps.map((p) => p.id).sort();

  it('stored() and forText() keep the policies that apply in the current cluster', async () => {
    for (const [here, expected] of [
      [production, ['damaged-limit', 'everywhere', 'prod-by-label', 'prod-by-name']],
      [staging, ['damaged-limit', 'everywhere', 'staging-only']],
      [undefined, ['damaged-limit', 'everywhere', 'prod-by-label', 'prod-by-name', 'staging-only']],
    ] as const) {
      const s = await source(here);
      expect(ids((await s.stored()).policies), here?.name).to.deep.equal(expected);
      expect(ids(await s.forText('replicas')), here?.name).to.deep.equal(expected);
    }
  });

  it('policyOf keeps a valid limit and drops a damaged one', () => {
    expect(policyOf(point('a', { names: ['production'] }))?.clusters).to.deep.equal({ names: ['production'] });
    expect(policyOf(point('b', { selector: 'env=production' }))).to.not.have.property('clusters');
  });
});
