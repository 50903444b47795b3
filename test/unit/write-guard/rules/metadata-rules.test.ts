import { expect } from 'chai';
import { LAST_APPLIED, METADATA_RULES, metadataKey, RESTARTED_AT } from '../../../../domain/write-guard/rules/metadata-rules.js';
import { SOLUTION_LABEL } from '../../../../domain/deployment/manifest-labels.js';
import { ruleCases, type RuleCase } from '../../../support/rule-input.js';

const CASES: RuleCase[] = [
  { name: 'a finalizer added', path: 'metadata.finalizers[0]', to: 'acme.io/keep', rule: 'meta.owners', risk: 'high', reason: /metadata\.finalizers/ },
  { name: 'the finalizers list emptied', path: 'metadata.finalizers', from: ['a'], to: [], rule: 'meta.owners', risk: 'high' },
  { name: 'an owner reference', path: 'metadata.ownerReferences[0].uid', to: 'u', rule: 'meta.owners', risk: 'high', reason: /metadata\.ownerReferences/ },
  { name: 'the name set on create', path: 'metadata.name', to: 'web', created: true, rule: 'meta.identity', risk: 'low' },
  { name: 'the name changed', path: 'metadata.name', from: 'web', to: 'api', rule: 'meta.identity', risk: 'high', reason: /renames or retypes/ },
  { name: 'the kind changed', path: 'kind', from: 'Deployment', to: 'StatefulSet', rule: 'meta.identity', risk: 'high' },
  { name: 'a plain label', path: 'metadata.labels.tier', to: 'web', rule: 'meta.labels', risk: 'low' },
  { name: 'an app.kubernetes.io label', path: 'metadata.labels["app.kubernetes.io/version"]', to: '2', rule: 'meta.labels', risk: 'low' },
  {
    name: "a controller's label",
    path: 'metadata.labels["istio.io/rev"]',
    to: 'canary',
    rule: 'meta.labels',
    risk: 'high',
    reason: /does not know what label istio\.io\/rev does/,
  },
  // a descriptive prefix with one more path step is not the descriptive key
  { name: 'app.kubernetes.io with a second slash', path: 'metadata.labels["app.kubernetes.io/x/y"]', to: '1', rule: 'meta.labels', risk: 'high' },
  { name: 'the change-cause annotation', path: 'metadata.annotations["kubernetes.io/change-cause"]', to: 'fix', rule: 'meta.annotations', risk: 'low' },
  { name: 'the restartedAt annotation', path: `metadata.annotations["${RESTARTED_AT}"]`, to: 'now', rule: 'meta.annotations', risk: 'low' },
  {
    name: 'the last-applied annotation',
    path: `metadata.annotations["${LAST_APPLIED}"]`,
    to: '{}',
    rule: 'meta.annotations',
    risk: 'high',
    reason: /next kubectl apply/,
  },
  {
    name: "a webhook's annotation",
    path: 'metadata.annotations["sidecar.istio.io/inject"]',
    to: 'true',
    rule: 'meta.annotations',
    risk: 'high',
    reason: /annotation sidecar\.istio\.io\/inject/,
  },
  { name: 'hostNetwork in a custom resource', path: 'spec.runner.hostNetwork', to: true, rule: 'meta.host-access', risk: 'high', reason: /host access/ },
  { name: 'privileged deep in a custom resource', path: 'spec.a.b.c.privileged', to: 'true', rule: 'meta.host-access', risk: 'high' },
  { name: 'a hostPath anywhere', path: 'spec.volumes[0].hostPath.path', to: '/', rule: 'meta.host-access', risk: 'high' },
  { name: 'hostPID set false', path: 'spec.hostPID', to: false, rule: 'meta.host-access', risk: 'low' },
  { name: 'hostIPC unset', path: 'spec.hostIPC', from: true, rule: 'meta.host-access', risk: 'low' },
  { name: 'a pod spec patch', path: 'spec.podSpecPatch', to: '{}', rule: 'meta.pod-spec-patch', risk: 'high', reason: /text svc cannot judge/ },
  { name: 'a field of a kind', path: 'spec.replicas', to: 3, rule: undefined },
  { name: 'a label map replaced whole', path: 'metadata.labels', to: {}, rule: undefined },
];

describe('write guard rules: metadata of every kind', () => {
  describe('metadataKey', () => {
    const table: [string, ReturnType<typeof metadataKey>][] = [
      ['app', 'plain'],
      ['app.kubernetes.io/name', 'plain'],
      ['helm.sh/chart', 'plain'],
      ['meta.helm.sh/release-name', 'plain'],
      ['prometheus.io/scrape', 'plain'],
      [SOLUTION_LABEL, 'plain'],
      [RESTARTED_AT, 'restart'],
      [LAST_APPLIED, 'unknown'],
      ['helm.sh/hook', 'unknown'],
      ['prometheus.io/other', 'unknown'],
      ['kubernetes.io/ingress.class', 'unknown'],
      ['xapp.kubernetes.io/name', 'unknown'],
    ];
    for (const [key, read] of table) it(`${key}: ${read}`, () => expect(metadataKey(key)).to.equal(read));
  });

  describe('each rule, where it applies and where it does not', () => ruleCases(METADATA_RULES, CASES));

  it('apply to every kind', () => expect(new Set(METADATA_RULES.map((r) => r.scope))).to.deep.equal(new Set(['any'])));
});
