import { expect } from 'chai';
import type { KubeObject } from '../../../domain/cluster/kube-types.js';
import { changedLeaves, itemSegments, pathKey, sameSegment, under } from '../../../domain/write-guard/leaf-changes.js';
import { LAST_APPLIED } from '../../../domain/write-guard/rules/metadata-rules.js';
import { segmentsOf } from '../../support/rule-input.js';
import { deployment, obj } from '../../support/write-guard-kit.js';

const shown = (live: KubeObject | null, result: KubeObject) => changedLeaves(live, result).map((l) => ({ key: l.key, from: l.from, to: l.to }));
const key = (path: string) => pathKey(segmentsOf(path));

describe('write guard: the leaves a write changes', () => {
  it('a create sets every leaf, an empty object included', () => {
    const leaves = changedLeaves(null, obj('v1', 'ConfigMap', { data: { a: '1' }, binaryData: {} }));
    expect(leaves.map((l) => l.key)).to.include.members([key('data.a'), key('binaryData'), key('metadata.name')]);
    expect(leaves.every((l) => !('from' in l))).to.equal(true);
  });

  it('a change, a removal and an unchanged leaf', () => {
    const live = obj('v1', 'ConfigMap', { data: { a: '1', b: '2', c: '3' } });
    const result = obj('v1', 'ConfigMap', { data: { a: '1', b: '20' } });
    expect(shown(live, result)).to.deep.equal([
      { key: key('data.b'), from: '2', to: '20' },
      { key: key('data.c'), from: '3', to: undefined },
    ]);
  });

  it('steps into a list by name, so a reordered list changes nothing and a renamed item is a removal and an addition', () => {
    const web = { name: 'web', image: 'ghcr.io/a:1' };
    const proxy = { name: 'proxy', image: 'ghcr.io/b:1' };
    const pods = (...containers: Record<string, unknown>[]) => deployment({ containers });
    expect(changedLeaves(pods(web, proxy), pods(proxy, web))).to.deep.equal([]);
    const renamed = shown(pods(web, proxy), pods(web, { ...proxy, name: 'sidecar' })).map((l) => l.key);
    expect(renamed).to.include(key('spec.template.spec.containers[name=sidecar].image'));
    expect(renamed).to.include(key('spec.template.spec.containers[name=proxy].image'));
  });

  it('leaves status and server-written metadata out', () => {
    const live = obj('apps/v1', 'Deployment', { spec: { replicas: 2 }, status: { replicas: 2 } }, { resourceVersion: '1', uid: 'u' });
    const result = obj('apps/v1', 'Deployment', { spec: { replicas: 2 }, status: { replicas: 3 } }, { resourceVersion: '2', uid: 'u' });
    expect(changedLeaves(live, result)).to.deep.equal([]);
  });

  it('keeps the last-applied annotation, which the diff leaves out, as one leaf', () => {
    const live = obj('v1', 'ConfigMap', { data: { a: '1' } }, { annotations: { [LAST_APPLIED]: '{"a":1}' } });
    const result = obj('v1', 'ConfigMap', { data: { a: '1' } }, { annotations: { [LAST_APPLIED]: '{"a":2}' } });
    expect(shown(live, result)).to.deep.equal([{ key: key(`metadata.annotations["${LAST_APPLIED}"]`), from: '{"a":1}', to: '{"a":2}' }]);
  });

  it('itemSegments names items only when every item has a unique name', () => {
    expect(itemSegments([{ name: 'a' }, { name: 'b' }])).to.deep.equal([{ name: 'a' }, { name: 'b' }]);
    // a duplicate name would let one item hide behind another: by position
    expect(itemSegments([{ name: 'a' }, { name: 'a' }])).to.deep.equal([{ index: 0 }, { index: 1 }]);
    expect(itemSegments([{ name: 'a' }, { port: 80 }])).to.deep.equal([{ index: 0 }, { index: 1 }]);
    expect(itemSegments(['x', 'y'])).to.deep.equal([{ index: 0 }, { index: 1 }]);
  });

  it('under: a path lies under another only at a segment boundary, whatever the keys hold', () => {
    expect(under(key('spec.template.spec'), key('spec.template'))).to.equal(true);
    expect(under(key('spec.template'), key('spec.template'))).to.equal(true);
    expect(under(key('spec.templates'), key('spec.template'))).to.equal(false);
    // a key holding the separator cannot pose as a deeper path
    expect(under(pathKey([{ key: 'spec' }, { key: 'a/"b' }]), pathKey([{ key: 'spec' }, { key: 'a' }]))).to.equal(false);
    expect(under(key('spec.containers[name=web].image'), key('spec.containers[name=we]'))).to.equal(false);
    expect(under(key('spec.containers[1]'), key('spec.containers[name=1]'))).to.equal(false);
    // a position is a prefix of a longer one: item 12 is not under item 1
    expect(under(key('spec.containers[12].image'), key('spec.containers[1]'))).to.equal(false);
    expect(under(key('spec.containers[1].image'), key('spec.containers[1]'))).to.equal(true);
  });

  it('sameSegment compares keys, positions and names, never across them', () => {
    expect(sameSegment({ key: 'a' }, { key: 'a' })).to.equal(true);
    expect(sameSegment({ index: 0 }, { index: 0 })).to.equal(true);
    expect(sameSegment({ name: 'web' }, { name: 'web' })).to.equal(true);
    expect(sameSegment({ key: '0' }, { index: 0 })).to.equal(false);
    expect(sameSegment({ name: 'a' }, { key: 'a' })).to.equal(false);
    expect(sameSegment({ index: 1 }, { index: 2 })).to.equal(false);
  });
});
