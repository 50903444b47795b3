import { expect } from 'chai';
import type { KubeObject } from '../../../domain/cluster/kube-types.js';
import type { ObjectState } from '../../../domain/ledger/change-entry.js';
import { inverseOf } from '../../../domain/ledger/inverse-change.js';
import { objectState } from '../../../domain/ledger/object-state.js';
import { shopWebDeployment, shopWebRef } from '../../support/ledger-records.js';

const before = (o: KubeObject): ObjectState => objectState(o)!;
const secret = (v: string): KubeObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: 'shop' }, data: { p: v } });
const SECRET = { apiVersion: 'v1', kind: 'Secret', namespace: 'shop', name: 'db' };

describe('ledger: the change that undoes a write', () => {
  it('nothing before and after: nothing to undo', () => expect(inverseOf(shopWebRef, null, null)).to.equal(null));

  it('a create is undone by a delete', () => expect(inverseOf(shopWebRef, null, shopWebDeployment(1))).to.deep.equal({ method: 'delete' }));

  it('a delete is undone by creating the object again as it was', () => {
    const undo = inverseOf(shopWebRef, before(shopWebDeployment(2)), null);
    expect(undo).to.deep.equal({
      method: 'create',
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'shop', labels: { app: 'web' } },
        spec: shopWebDeployment(2).spec,
      },
    });
  });

  it('a deleted Secret cannot be re-created: the ledger keeps no values, only ***', () => {
    expect(inverseOf(SECRET, before(secret('czNjcjN0')), null)).to.equal(null);
  });

  it('a changed field is put back by a merge patch; a change in a list puts the list back whole', () => {
    expect(inverseOf(shopWebRef, before(shopWebDeployment(1)), shopWebDeployment(3))).to.deep.equal({
      method: 'patch',
      patchType: 'merge',
      body: { spec: { replicas: 1 } },
    });
    expect(inverseOf(shopWebRef, before(shopWebDeployment(1, 'web:1')), shopWebDeployment(1, 'web:2'))).to.deep.equal({
      method: 'patch',
      patchType: 'merge',
      body: { spec: { template: { spec: { containers: [{ name: 'web', image: 'web:1' }] } } } },
    });
  });

  it('a field the write added is removed (null) by the undo; a label too', () => {
    const after: KubeObject = { ...shopWebDeployment(1), metadata: { ...shopWebDeployment(1).metadata, labels: { app: 'web', tier: 'x' } } };
    after.spec = { ...(after.spec as object), paused: true };
    expect(inverseOf(shopWebRef, before(shopWebDeployment(1)), after)).to.deep.equal({
      method: 'patch',
      patchType: 'merge',
      body: { spec: { paused: null }, metadata: { labels: { tier: null } } },
    });
  });

  it('writes back neither status nor server metadata: a change of only those has no undo', () => {
    const after = { ...shopWebDeployment(1), status: { replicas: 1 }, metadata: { ...shopWebDeployment(1).metadata, generation: 9, resourceVersion: '5' } };
    expect(inverseOf(shopWebRef, before(shopWebDeployment(1)), after)).to.equal(null);
  });

  it("a changed Secret's undo would write ***: none", () => {
    expect(inverseOf(SECRET, before(secret('YQ==')), secret('Yg=='))).to.equal(null);
  });
});
