import { expect } from 'chai';
import { dryRunOperation, sendOperation, sentChangeOf, writeAsSent } from '../../../application/guarded-write/operation-calls.js';
import type { ClusterOperation } from '../../../domain/actions/cluster-action.js';
import type { KubeObject } from '../../../domain/cluster/kube-types.js';
import { FakeCluster } from '../../fakes/fake-cluster.js';
import { rejection } from '../../support/rejection.js';

const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' };
const web: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop', resourceVersion: '5', uid: 'u-5' },
  spec: { replicas: 1 },
};
const cm: KubeObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cfg', namespace: 'shop', resourceVersion: '9', uid: 'u-9' },
  data: { a: '1' },
};
const patch = (resourceVersion?: string): ClusterOperation => ({
  method: 'patch',
  ref,
  patch: { spec: { replicas: 2 } },
  patchType: 'merge',
  ...(resourceVersion ? { resourceVersion } : {}),
});

describe('application/guarded-write/operation-calls: one operation as dry-run, sent and recorded, with its preconditions', () => {
  it('records the exact call with its pin in the body, as the adapter sends it', () => {
    expect(sentChangeOf(patch('5'))).to.deep.equal({
      method: 'patch',
      patchType: 'merge',
      body: { spec: { replicas: 2 }, metadata: { resourceVersion: '5' } },
    });
    expect(
      sentChangeOf({ method: 'patch', ref, patch: [{ op: 'replace', path: '/spec/replicas', value: 2 }], patchType: 'json', resourceVersion: '5' }),
    ).to.deep.equal({
      method: 'patch',
      patchType: 'json',
      body: [
        { op: 'replace', path: '/spec/replicas', value: 2 },
        { op: 'replace', path: '/metadata/resourceVersion', value: '5' },
      ],
    });
    expect(sentChangeOf({ method: 'apply', manifest: cm })).to.deep.equal({ method: 'apply', patchType: 'apply', body: cm });
    // a create carries no server-owned fields: its precondition is the object's absence
    expect(sentChangeOf({ method: 'create', manifest: cm }).body).to.deep.equal({ ...cm, metadata: { name: 'cfg', namespace: 'shop' } });
    expect(sentChangeOf({ method: 'delete', ref, uid: 'u-5', resourceVersion: '5' })).to.deep.equal({
      method: 'delete',
      body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'u-5', resourceVersion: '5' } },
    });
    expect(sentChangeOf({ method: 'delete', ref })).to.deep.equal({ method: 'delete' });
  });

  it('hands the guard the verb, and for a patch its type and body', () => {
    expect(writeAsSent(patch())).to.deep.equal({ verb: 'patch', patchType: 'merge', patch: { spec: { replicas: 2 } } });
    expect(writeAsSent({ method: 'create', manifest: cm })).to.deep.equal({ verb: 'create' });
    expect(writeAsSent({ method: 'delete', ref })).to.deep.equal({ verb: 'delete' });
  });

  it('dry-runs with the pin: a stale version is the Conflict verdict, not an exception', async () => {
    const cluster = new FakeCluster().put(web, cm);
    expect(await dryRunOperation(cluster, patch('5'))).to.deep.include({ accepted: true });
    expect(await dryRunOperation(cluster, patch('4'))).to.deep.include({ accepted: false, reason: 'Conflict' });
    expect(await dryRunOperation(cluster, { method: 'create', manifest: cm })).to.deep.include({ accepted: false, reason: 'AlreadyExists' });
    expect(await dryRunOperation(cluster, { method: 'apply', manifest: cm, resourceVersion: '1' })).to.deep.include({ reason: 'Conflict' });
    expect(await dryRunOperation(cluster, { method: 'delete', ref, resourceVersion: '4' })).to.deep.include({ reason: 'Conflict' });
    expect(cluster.writes).to.deep.equal([]);
  });

  it('sends the write with its pins: the stored object back, nothing after a delete, a changed object refused', async () => {
    const cluster = new FakeCluster().put(web);
    expect(await rejection(sendOperation(cluster, patch('4'), [])))
      .to.have.property('message')
      .that.contains('409 Conflict');
    const stored = await sendOperation(cluster, patch('5'), []);
    expect(stored?.spec).to.deep.equal({ replicas: 2 });
    expect(await rejection(sendOperation(cluster, { method: 'delete', ref, uid: 'another' }, [])))
      .to.have.property('message')
      .that.contains('UID');
    expect(await sendOperation(cluster, { method: 'delete', ref, uid: 'u-5' }, [])).to.equal(undefined);
    expect(cluster.writes.map((w) => w.method)).to.deep.equal(['patch', 'delete']);
    expect(await sendOperation(cluster, { method: 'create', manifest: cm }, [])).to.have.nested.property('metadata.name', 'cfg');
  });
});
