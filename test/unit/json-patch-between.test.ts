import { expect } from 'chai';
import { customResourceOperations } from '../../domain/actions/custom-resource-patch.js';
import { jsonPatchBetween, mergePatched } from '../../domain/cluster/json-patch-between.js';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import { applyJsonPatch } from '../../lab/sandbox/kube/kube-patches.js';

type Obj = Record<string, any>;

/** A small random JSON value: objects, lists, scalars, keys with `/` and `~`. */
function randomValue(depth: number, rnd: () => number): unknown {
  const pick = Math.floor(rnd() * (depth > 2 ? 3 : 6));
  if (pick === 0) return Math.floor(rnd() * 5);
  if (pick === 1) return ['a', 'b', 'x/y', 'm~n'][Math.floor(rnd() * 4)];
  if (pick === 2) return rnd() < 0.5;
  if (pick === 3) return Array.from({ length: Math.floor(rnd() * 4) }, () => randomValue(depth + 1, rnd));
  const keys = ['a', 'b', 'c/d', 'e~f', 'g'];
  return Object.fromEntries(keys.filter(() => rnd() < 0.5).map((k) => [k, randomValue(depth + 1, rnd)]));
}

function seeded(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

describe('jsonPatchBetween: the RFC 6902 operations from one object to another', () => {
  it('touches only what differs: keys added, removed and replaced; list items by index, appended with -, removed from the end', () => {
    const from = { spec: { size: 1, owner: 'a', items: [{ size: 1 }, { size: 2 }, { size: 3 }], keep: [1] }, metadata: { annotations: { 'a.b/c': 'x' } } };
    const to = { spec: { size: 2, items: [{ size: 1 }, { size: 5 }], keep: [1], extra: { on: true } }, metadata: { annotations: { 'a.b/c': 'y' } } };
    const ops = jsonPatchBetween(from, to);
    expect(ops).to.have.deep.members([
      { op: 'replace', path: '/spec/size', value: 2 },
      { op: 'remove', path: '/spec/owner' },
      { op: 'replace', path: '/spec/items/1/size', value: 5 },
      { op: 'remove', path: '/spec/items/2' },
      { op: 'add', path: '/spec/extra', value: { on: true } },
      { op: 'replace', path: '/metadata/annotations/a.b~1c', value: 'y' },
    ]);
    expect((applyJsonPatch(from, ops) as { result: Obj }).result).to.deep.equal(to);
    expect(jsonPatchBetween({ a: [1, 2] }, { a: [1, 2, 3, 4] })).to.deep.equal([
      { op: 'add', path: '/a/-', value: 3 },
      { op: 'add', path: '/a/-', value: 4 },
    ]);
    expect(jsonPatchBetween({ a: { b: 1, c: 2 } }, { a: { c: 2, b: 1 } })).to.deep.equal([]);
  });

  it('applied by the stand-in, the operations turn the first of 500 random pairs into the second', () => {
    const rnd = seeded(26);
    for (let i = 0; i < 500; i++) {
      const from = { root: randomValue(0, rnd) } as Obj;
      const to = { root: randomValue(0, rnd) } as Obj;
      const out = applyJsonPatch(from, jsonPatchBetween(from, to));
      expect(out, JSON.stringify({ from, to })).to.deep.equal({ result: to });
    }
  });

  it('a custom resource object patch becomes operations for the named fields only; built-in kinds and operation lists are left alone', () => {
    const live = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'x', resourceVersion: '7' },
      spec: { size: 1, items: [{ size: 1 }] },
      status: { ready: true },
    } as KubeObject;
    const action = {
      type: 'patch' as const,
      target: { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', namespace: 'x' },
      description: 'd',
      risk: 'low' as const,
      rationale: 'r',
    };
    expect(customResourceOperations({ ...action, patch: { spec: { size: 2, extra: null } } }, live)).to.deep.equal([
      { op: 'replace', path: '/spec/size', value: 2 },
    ]);
    expect(customResourceOperations({ ...action, patch: { spec: { size: 1 } } }, live)).to.deep.equal([]);
    expect(customResourceOperations({ ...action, patch: { spec: { size: 2 } } }, null)).to.equal(undefined);
    expect(customResourceOperations({ ...action, patch: [{ op: 'replace', path: '/spec/size', value: 2 }] }, live)).to.equal(undefined);
    expect(
      customResourceOperations({ ...action, target: { ...action.target, apiVersion: 'apps/v1', kind: 'Deployment' }, patch: { spec: { replicas: 2 } } }, live),
    ).to.equal(undefined);
    expect(mergePatched({ a: [1, 2], b: { c: 1 } }, { a: [3], b: { c: null, d: 2 } })).to.deep.equal({ a: [3], b: { d: 2 } });
  });
});
