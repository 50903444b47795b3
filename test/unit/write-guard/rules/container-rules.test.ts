import { expect } from 'chai';
import { CONTAINER_RULES, SECURITY } from '../../../../domain/write-guard/rules/container-rules.js';
import { matches } from '../../../../domain/write-guard/rules/field-rule.js';
import { ruleCases, type RuleCase } from '../../../support/rule-input.js';

/** Paths relative to a container found by shape, as the guard hands them to the container rules. */
const CASES: RuleCase[] = [
  { name: 'the image', path: 'image', from: 'ghcr.io/a:1', to: 'ghcr.io/a:2', rule: 'container.fields', risk: 'medium' },
  { name: 'an env value', path: 'env[name=LOG].value', from: 'info', to: 'debug', rule: 'container.fields', risk: 'medium' },
  { name: 'a Secret key reference', path: 'env[name=DB].valueFrom.secretKeyRef.name', to: 'db', rule: 'container.fields', risk: 'medium' },
  { name: 'a memory limit', path: 'resources.limits.memory', from: '256Mi', to: '512Mi', rule: 'container.fields', risk: 'medium' },
  { name: 'a probe', path: 'readinessProbe.httpGet.path', from: '/', to: '/ready', rule: 'container.fields', risk: 'medium' },
  { name: 'a lifecycle hook', path: 'lifecycle.preStop.exec.command[0]', to: 'sleep', rule: 'container.fields', risk: 'medium' },
  // the Pod Security Standards judge the whole pod (pod-risk.ts); the field itself is claimed at medium
  { name: 'privileged', path: 'securityContext.privileged', to: true, rule: 'container.fields', risk: 'medium' },
  { name: 'an added capability', path: 'securityContext.capabilities.add[0]', to: 'SYS_ADMIN', rule: 'container.fields', risk: 'medium' },
  { name: 'a read-only mount', path: 'volumeMounts[name=data].readOnly', from: true, to: false, rule: 'container.mounts', risk: 'medium' },
  { name: 'HostToContainer propagation', path: 'volumeMounts[name=data].mountPropagation', to: 'HostToContainer', rule: 'container.mounts', risk: 'medium' },
  {
    name: 'Bidirectional propagation',
    path: 'volumeMounts[name=data].mountPropagation',
    to: 'Bidirectional',
    rule: 'container.mounts',
    risk: 'high',
    reason: /propagates mounts back to the node/,
  },
  // what the API does not define in a container stays unclaimed (the guard rates it high)
  { name: 'a field the API does not define', path: 'sneaky', to: 'x', rule: undefined },
  { name: 'a security context field the API does not define', path: 'securityContext.runAsRoot', to: true, rule: undefined },
  { name: 'a capability under a made-up key', path: 'securityContext.capabilities.grant[0]', to: 'SYS_ADMIN', rule: undefined },
  { name: 'an env field the API does not define', path: 'env[name=X].valueFrom.secretKeyRef.namespace', to: 'kube-system', rule: undefined },
];

describe('write guard rules: containers', () => {
  ruleCases(CONTAINER_RULES, CASES);

  it('are all container-scoped, so they judge a container found by shape in any kind', () => {
    expect(CONTAINER_RULES.map((r) => r.scope)).to.deep.equal(['container', 'container']);
  });

  it('SECURITY claims a whole security context and each field, and nothing beside it', () => {
    const claims = (path: string) => SECURITY.some((p) => matches(p, path.split('.')));
    expect(claims('securityContext')).to.equal(true);
    expect(claims('securityContext.seccompProfile.type')).to.equal(true);
    expect(claims('securityContext.windowsOptions.hostProcess')).to.equal(true);
    expect(claims('securityContext.seccompProfile')).to.equal(false);
    expect(claims('securityContextx')).to.equal(false);
  });
});
