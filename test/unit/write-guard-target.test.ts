import { expect } from 'chai';
import type { ApiResourceInfo } from '../../domain/cluster/kube-types.js';
import { kindNamed, parseKindName } from '../../domain/write-guard/kind-names.js';
import { resolveTarget, type ResolvedTarget } from '../../domain/write-guard/resolved-target.js';
import { checkBeforeIo, judgeWrite, type GuardSettings } from '../../domain/write-guard/write-guard.js';

const served = (group: string, version: string, kind: string, resource: string, namespaced: boolean): ApiResourceInfo => ({
  group,
  version,
  apiVersion: group ? `${group}/${version}` : version,
  kind,
  resource,
  namespaced,
  verbs: ['get', 'patch'],
  shortNames: [],
});
const NODE = served('', 'v1', 'Node', 'nodes', false);
const DEPLOY = served('apps', 'v1', 'Deployment', 'deployments', true);
const open: GuardSettings = {
  kinds: [],
  namespaces: [],
  protectedNamespaces: ['kube-system'],
  imageRegistries: [],
  podSecurityLevel: 'baseline',
  kindRisks: [],
};
const resolved = (info: ApiResourceInfo, name: string, namespace?: string): ResolvedTarget => {
  const r = resolveTarget({ apiVersion: info.apiVersion, kind: info.kind, name, ...(namespace ? { namespace } : {}) }, info);
  if (!('target' in r)) throw new Error(r.refusal);
  return r.target;
};

describe('write guard: the target from discovery, the allow-lists by group and kind', () => {
  const cases: [string, Parameters<typeof resolveTarget>, RegExp | ResolvedTarget][] = [
    ['a Node given a namespace is refused', [{ apiVersion: 'v1', kind: 'Node', name: 'cp-1', namespace: 'shop' }, NODE], /cluster-scoped.*namespace shop/],
    [
      'a ClusterRoleBinding carrying metadata.namespace is refused',
      [
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', name: 'x', namespace: 'shop' },
        served('rbac.authorization.k8s.io', 'v1', 'ClusterRoleBinding', 'clusterrolebindings', false),
      ],
      /cluster-scoped/,
    ],
    ['a namespaced kind without a namespace is refused', [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, DEPLOY], /no namespace was given/],
    ['a kind the cluster does not serve is refused', [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' }, undefined], /serves no kind/],
    ['discovery answering another kind is refused', [{ apiVersion: 'v1', kind: 'Node', name: 'web', namespace: 'x' }, DEPLOY], /serves no kind Node/],
    [
      'a Node without a namespace resolves cluster-scoped',
      [{ apiVersion: 'v1', kind: 'Node', name: 'cp-1' }, NODE],
      { group: '', version: 'v1', kind: 'Node', resource: 'nodes', namespaced: false, name: 'cp-1' },
    ],
    [
      'a Deployment resolves with its resource and namespace',
      [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' }, DEPLOY],
      { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments', namespaced: true, name: 'web', namespace: 'x' },
    ],
  ];
  for (const [name, args, expected] of cases)
    it(name, () => {
      const r = resolveTarget(...args);
      if (expected instanceof RegExp) expect('refusal' in r && r.refusal).to.match(expected);
      else expect(r).to.deep.equal({ target: expected });
    });

  it('SVC_WRITE_KINDS entries name group and kind; a bare kind names the built-in groups only', () => {
    const table: [string, string, string, boolean][] = [
      ['Service', '', 'Service', true],
      ['Service', 'serving.knative.dev', 'Service', false],
      ['serving.knative.dev/Service', 'serving.knative.dev', 'Service', true],
      ['serving.knative.dev/Service', '', 'Service', false],
      ['Deployment', 'apps', 'Deployment', true],
      ['apps/Deployment', 'apps', 'Deployment', true],
      ['apps/Deployment', 'extensions.example', 'Deployment', false],
      ['core/Service', '', 'Service', true],
      ['core/Service', 'apps', 'Service', false],
      ['Rollout', 'argoproj.io', 'Rollout', false],
    ];
    for (const [entry, group, kind, named] of table) expect(kindNamed([parseKindName(entry)], group, kind), `${entry} vs ${group}/${kind}`).to.equal(named);
    expect(kindNamed([], 'anything.example', 'Widget')).to.equal(true);
    for (const bad of ['', 'apps/', 'Bad Kind', 'UPPER.Group/Kind', 'a_b/Kind']) expect(() => parseKindName(bad), bad).to.throw(/is not/);
  });

  it('the allow-lists refuse before any I/O, judged on the resolved target', () => {
    const knative = resolved(served('serving.knative.dev', 'v1', 'Service', 'services', true), 'web', 'shop');
    const patch = { verb: 'patch' as const, patchType: 'merge' as const, patch: { spec: {} } };
    const kinds = { ...open, kinds: [parseKindName('Service')] };
    expect(checkBeforeIo(knative, patch, kinds)).to.deep.include({ allowed: false, code: 'OutsideWriteScope' });
    expect(checkBeforeIo(knative, patch, kinds)!.reason).to.match(/serving\.knative\.dev\/Service shop\/web is outside SVC_WRITE_KINDS \(Service\)/);
    expect(checkBeforeIo(resolved(served('', 'v1', 'Service', 'services', true), 'web', 'shop'), patch, kinds)).to.equal(undefined);
    const node = resolved(NODE, 'cp-1');
    expect(checkBeforeIo(node, patch, { ...open, namespaces: ['shop'] })!.reason).to.match(/cluster-scoped.*outside SVC_WRITE_NAMESPACES \(shop\)/);
    expect(checkBeforeIo(resolved(DEPLOY, 'web', 'payments'), patch, { ...open, namespaces: ['shop'] })!.reason).to.match(/namespace payments/);
    expect(checkBeforeIo(resolved(DEPLOY, 'web', 'shop'), patch, { ...open, namespaces: ['shop'] })).to.equal(undefined);
    // judgeWrite makes the same checks
    expect(judgeWrite({ target: node, live: null, result: null, write: patch, settings: { ...open, namespaces: ['shop'] } })).to.deep.include({
      allowed: false,
    });
  });

  it('JSON Patch copy and move are refused, and a test against Secret data', () => {
    const secret = resolved(served('', 'v1', 'Secret', 'secrets', true), 'db', 'shop');
    const cm = resolved(served('', 'v1', 'ConfigMap', 'configmaps', true), 'c', 'shop');
    const json = (ops: unknown[]) => ({ verb: 'patch' as const, patchType: 'json' as const, patch: ops as never });
    const table: [ResolvedTarget, unknown[], RegExp | undefined][] = [
      [secret, [{ op: 'copy', from: '/data/password', path: '/metadata/annotations/leak' }], /copy from \/data\/password.*refuses copy and move/],
      [secret, [{ op: 'move', from: '/stringData/token', path: '/metadata/labels/x' }], /move from \/stringData\/token/],
      [cm, [{ op: 'copy', from: '/data/a', path: '/data/b' }], /refuses copy and move/],
      [secret, [{ op: 'test', path: '/data/password', value: 'aHVudGVyMg==' }], /refuses tests against Secret data/],
      [cm, [{ op: 'test', path: '/data/a', value: 'x' }], undefined],
      [secret, [{ op: 'replace', path: '/data/password', value: 'bmV3' }], undefined],
    ];
    for (const [target, ops, expected] of table) {
      const r = checkBeforeIo(target, json(ops), open);
      if (expected) expect(r, JSON.stringify(ops)).to.deep.include({ code: 'UnsafePatch' }) && expect(r!.reason).to.match(expected);
      else expect(r, JSON.stringify(ops)).to.equal(undefined);
    }
  });
});
