import { expect } from 'chai';
import type { KubeObject } from '../../../domain/cluster/kube-types.js';
import { applyBody, createBody, deleteBody, patchBody } from '../../../domain/cluster/write-bodies.js';

const manifest: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web', namespace: 'shop', labels: { a: 'b' } }, data: { k: 'v' } };

describe('cluster: the bodies of the writes svc sends, preconditions included', () => {
  it('an apply carries the pin in its metadata, or is the manifest as it is', () => {
    expect(applyBody(manifest)).to.equal(manifest);
    expect(applyBody(manifest, '42')).to.deep.equal({ ...manifest, metadata: { ...manifest.metadata, resourceVersion: '42' } });
    expect(manifest.metadata).to.not.have.property('resourceVersion');
  });

  it('a merge patch carries the pin in the metadata it patches, keeping what it patches there', () => {
    expect(patchBody({ spec: { replicas: 2 } })).to.deep.equal({ spec: { replicas: 2 } });
    expect(patchBody({ metadata: { labels: { a: 'c' } } }, '42')).to.deep.equal({ metadata: { labels: { a: 'c' }, resourceVersion: '42' } });
  });

  it('a JSON Patch gets the pin as its last operation, so an earlier one cannot change it', () => {
    const ops = [
      { op: 'replace' as const, path: '/metadata/resourceVersion', value: '1' },
      { op: 'replace' as const, path: '/spec/replicas', value: 2 },
    ];
    expect(patchBody(ops, '42')).to.deep.equal([...ops, { op: 'replace', path: '/metadata/resourceVersion', value: '42' }]);
    expect(patchBody(ops)).to.equal(ops);
  });

  it('a delete carries its pins as preconditions, or no body', () => {
    expect(deleteBody()).to.equal(undefined);
    expect(deleteBody('42')).to.deep.equal({ kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: '42' } });
    expect(deleteBody(undefined, 'u-1')).to.deep.equal({ kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'u-1' } });
    expect(deleteBody('42', 'u-1')).to.deep.equal({ kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'u-1', resourceVersion: '42' } });
  });

  it("a create leaves out the server's resourceVersion and uid: its precondition is the object's absence", () => {
    const read = { ...manifest, metadata: { ...manifest.metadata, resourceVersion: '7', uid: 'u-1' } };
    expect(createBody(read)).to.deep.equal(manifest);
  });
});
