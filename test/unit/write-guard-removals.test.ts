import { expect } from 'chai';
import type { JsonPatchOp, KubeObject } from '../../domain/cluster/kube-types.js';
import { diffSegments } from '../../domain/operations/object-diff.js';
import { unnamedRemovals, type WriteAsSent } from '../../domain/write-guard/sent-write.js';
import { judgeWrite } from '../../domain/write-guard/write-guard.js';

const env = (...names: string[]) => names.map((name) => ({ name, value: `v-${name}` }));
const live = (): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop', labels: { app: 'web' } },
  spec: {
    replicas: 2,
    template: {
      spec: {
        containers: [
          { name: 'web', image: 'nginx:1', args: ['--a', '--b', '--c'], env: env('A', 'B', 'C') },
          { name: 'sidecar', image: 'envoy:1', env: env('X', 'Y') },
        ],
      },
    },
  },
});
type Edit = (o: any) => void;
const after = (...edits: Edit[]): KubeObject => {
  const o = live() as any;
  for (const e of edits) e(o);
  return o;
};
const c = (o: any, i: number) => o.spec.template.spec.containers[i];
const dropEnv = (i: number, name: string) => (o: any) => (c(o, i).env = c(o, i).env.filter((e: { name: string }) => e.name !== name));
const json = (ops: JsonPatchOp[]): WriteAsSent => ({ verb: 'patch', patchType: 'json', patch: ops });
const smp = (patch: Record<string, unknown>): WriteAsSent => ({ verb: 'patch', patchType: 'strategic', patch });
const containers = (...items: unknown[]) => ({ spec: { template: { spec: { containers: items } } } });
const WEB = 'spec.template.spec.containers[name=web]';
const SIDE = 'spec.template.spec.containers[name=sidecar]';

describe('write guard: removals named inside list items', () => {
  const table: [string, WriteAsSent, KubeObject, string[]][] = [
    [
      'JSON Patch remove of one env item by index is named',
      json([{ op: 'remove', path: '/spec/template/spec/containers/0/env/1' }]),
      after(dropEnv(0, 'B')),
      [],
    ],
    [
      'two removes at the same index name the two items they remove in turn',
      json([
        { op: 'remove', path: '/spec/template/spec/containers/0/env/1' },
        { op: 'remove', path: '/spec/template/spec/containers/0/env/1' },
      ]),
      after(dropEnv(0, 'B'), dropEnv(0, 'C')),
      [],
    ],
    [
      "a remove in one container does not cover a replace that drops another container's env item",
      json([
        { op: 'remove', path: '/spec/template/spec/containers/0/env/1' },
        { op: 'replace', path: '/spec/template/spec/containers/1/env', value: env('X') },
      ]),
      after(dropEnv(0, 'B'), dropEnv(1, 'Y')),
      [`${SIDE}.env[name=Y]`],
    ],
    [
      'a remove of env item 1 does not cover item 2 gone too',
      json([{ op: 'remove', path: '/spec/template/spec/containers/0/env/1' }]),
      after(dropEnv(0, 'B'), dropEnv(0, 'C')),
      [`${WEB}.env[name=C]`],
    ],
    [
      'a remove inside an unnamed list (args) names one item of it',
      json([{ op: 'remove', path: '/spec/template/spec/containers/0/args/1' }]),
      after((o) => c(o, 0).args.splice(1, 1)),
      [],
    ],
    [
      'one remove does not cover two args gone',
      json([{ op: 'remove', path: '/spec/template/spec/containers/0/args/1' }]),
      after((o) => c(o, 0).args.splice(1, 2)),
      [`${WEB}.args`],
    ],
    [
      'a whole container removed by JSON Patch is named by its name',
      json([{ op: 'remove', path: '/spec/template/spec/containers/1' }]),
      after((o) => o.spec.template.spec.containers.pop()),
      [],
    ],
    [
      'a strategic merge $patch: delete inside a container item is named',
      smp(containers({ name: 'web', env: [{ name: 'B', $patch: 'delete' }] })),
      after(dropEnv(0, 'B')),
      [],
    ],
    [
      'a $patch: delete in one container does not cover the other container',
      smp(containers({ name: 'web', env: [{ name: 'B', $patch: 'delete' }] })),
      after(dropEnv(0, 'B'), dropEnv(1, 'X')),
      [`${SIDE}.env[name=X]`],
    ],
    ['a null inside a container item is named', smp(containers({ name: 'sidecar', env: null })), after((o) => delete c(o, 1).env), []],
    [
      '$deleteFromPrimitiveList names as many args as it lists',
      smp(containers({ name: 'web', '$deleteFromPrimitiveList/args': ['--b'] })),
      after((o) => c(o, 0).args.splice(1, 1)),
      [],
    ],
    [
      '$patch: replace of a container names nothing inside it',
      smp(containers({ name: 'web', image: 'nginx:1', $patch: 'replace' })),
      after((o) => (o.spec.template.spec.containers[0] = { name: 'web', image: 'nginx:1' })),
      [`${WEB}.args`, `${WEB}.env`],
    ],
    [
      'a JSON merge patch list replaces the list: the items it leaves out are unnamed',
      { verb: 'patch', patchType: 'merge', patch: containers({ name: 'web', image: 'nginx:1' }) },
      after((o) => o.spec.template.spec.containers.pop()),
      [SIDE],
    ],
    [
      "svc's own JSON Patch computed from a custom resource's list replacement names nothing: the action named no removal",
      {
        verb: 'patch',
        patchType: 'json',
        patch: [{ op: 'remove', path: '/spec/template/spec/containers/1' }],
        asked: { patchType: 'merge', patch: containers({ name: 'web', image: 'nginx:1' }) },
      },
      after((o) => o.spec.template.spec.containers.pop()),
      [SIDE],
    ],
    ['an apply names none', { verb: 'apply' }, after(dropEnv(0, 'B')), [`${WEB}.env[name=B]`]],
  ];
  for (const [name, write, result, flagged] of table)
    it(name, () => {
      expect(unnamedRemovals(write, diffSegments(live(), result), live())).to.deep.equal(flagged);
    });

  it('the guard raises an unnamed removal inside a list item to high and names it; a named one stays medium', () => {
    const target = { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments', namespaced: true, name: 'web', namespace: 'shop' };
    const settings = { kinds: [], namespaces: [], protectedNamespaces: [], imageRegistries: [], podSecurityLevel: 'baseline' as const, kindRisks: [] };
    const write = json([
      { op: 'remove', path: '/spec/template/spec/containers/0/env/1' },
      { op: 'replace', path: '/spec/template/spec/containers/1/env', value: env('X') },
    ]);
    const hidden = judgeWrite({ target, live: live(), result: after(dropEnv(0, 'B'), dropEnv(1, 'Y')), write, settings });
    expect(hidden).to.deep.include({ allowed: true, risk: 'high', unnamedRemovals: [`${SIDE}.env[name=Y]`] });
    const named = judgeWrite({
      target,
      live: live(),
      result: after(dropEnv(0, 'B')),
      write: json([{ op: 'remove', path: '/spec/template/spec/containers/0/env/1' }]),
      settings,
    });
    expect(named).to.deep.include({ allowed: true, risk: 'medium', unnamedRemovals: [] });
  });
});
