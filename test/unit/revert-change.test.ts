import { expect } from 'chai';
import { ChangeRecorder, type WriteContext } from '../../application/ledger/change-recorder.js';
import { RevertChange } from '../../application/ledger/revert-change.js';
import { rolesUpTo, STATIC_TOKEN_CALLER, type Caller } from '../../domain/auth/caller.js';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import { ConflictError, ForbiddenError, ValidationError } from '../../domain/errors.js';
import type { ChangeEntry } from '../../domain/ledger/change-entry.js';
import { FakeChangeLedger } from '../fakes/fake-change-ledger.js';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { guardOver } from '../fakes/null-safety.js';
import { NO_SECOND_APPROVER } from '../../domain/auth/session-owner.js';
import { NO_METRICS } from '../../domain/ports/metrics.js';
import { FakeClock } from '../support/fake-clock.js';
import { shopWebDeployment as deployment, shopWebRef as ref } from '../support/ledger-records.js';
import { rejection } from '../support/rejection.js';

const operator = (username: string): Caller => ({
  id: `tokens-file:svc:${username}`,
  username,
  groups: [],
  roles: [...rolesUpTo('operator')],
  kind: 'tokens-file',
});

describe('ChangeRecorder and RevertChange', () => {
  let cluster: FakeCluster;
  let ledger: FakeChangeLedger;
  let recorder: ChangeRecorder;
  let revert: RevertChange;
  let rv: number;
  const context = (caller: Caller = operator('alice')): WriteContext => ({
    caller,
    tool: 'operate',
    sessionId: `opr_${'a'.repeat(32)}`,
    request: 'scale web',
    approval: { mode: 'manual', by: caller.username },
  });
  const entry = async (id: string | undefined) => (await ledger.get(id!)) as ChangeEntry;

  async function patchVia(patch: Record<string, unknown>, caller?: Caller) {
    const verdict = await cluster.dryRunPatch(ref, patch);
    return recorder.write(
      context(caller),
      {
        target: ref,
        change: { method: 'patch', patchType: 'merge', body: patch },
        rationale: 'why',
        risk: 'low',
        dryRun: { accepted: verdict.accepted, object: verdict.accepted ? verdict.object : undefined },
      },
      () => cluster.patch(ref, patch),
    );
  }

  beforeEach(() => {
    const clock = new FakeClock();
    rv = 100;
    cluster = new FakeCluster();
    cluster.onWrite = (o) => ({ ...o, metadata: { ...o.metadata, resourceVersion: String(++rv) } });
    cluster.put({ ...deployment(1), metadata: { ...deployment(1).metadata, resourceVersion: '100' } });
    ledger = new FakeChangeLedger(clock);
    recorder = new ChangeRecorder(ledger, cluster);
    revert = new RevertChange(ledger, guardOver(cluster), recorder, { approval: NO_SECOND_APPROVER, metrics: NO_METRICS });
  });

  it('records a patch with every field, then reverts it, recording a revert entry pointing at it', async () => {
    const done = await patchVia({ spec: { replicas: 3 } });
    const e = await entry(done.ledgerId);
    expect(e).to.deep.include({
      type: 'change',
      caller: { id: 'tokens-file:svc:alice', username: 'alice', roles: ['viewer', 'operator'] },
      tool: 'operate',
      request: 'scale web',
      rationale: 'why',
      risk: 'low',
      approval: { mode: 'manual', by: 'alice' },
      target: ref,
      change: { method: 'patch', patchType: 'merge', body: { spec: { replicas: 3 } } },
      outcome: { status: 'applied' },
      resourceVersionAfter: '101',
      inverse: { method: 'patch', patchType: 'merge', body: { spec: { replicas: 1 } } },
    });
    expect(e.before).to.deep.include({ resourceVersion: '100', labels: { app: 'web' } });
    expect(e.dryRun).to.deep.equal({ accepted: true, diff: [{ path: 'spec.replicas', from: 1, to: 3 }] });
    const out = await revert.execute({ id: e.id }, operator('alice'));
    expect((await cluster.get(ref))!.spec).to.deep.include({ replicas: 1 });
    expect(out.original.id).to.equal(e.id);
    expect(out.revert).to.deep.include({ type: 'revert', tool: 'revert', revertOf: e.id, outcome: { status: 'applied' } });
    // twice in a row: the second is refused
    const again = await rejection(revert.execute({ id: e.id }, operator('alice')));
    expect(again).to.be.instanceOf(ConflictError);
    expect(again.message).to.include(`already reverted by ${out.revert.id}`);
    // a revert of the revert re-applies the change: only for a reviewed preview's planDigest (issue 30 item 11)
    const blind = await rejection(revert.execute({ id: out.revert.id }, operator('alice')));
    expect(blind).to.be.instanceOf(ValidationError);
    expect(blind.message).to.include(`is itself the revert of ${e.id}`).and.include('send {"preview": true}');
    expect((await cluster.get(ref))!.spec).to.deep.include({ replicas: 1 });
    const shown = await revert.preview({ id: out.revert.id }, operator('alice'));
    expect(shown.preview).to.deep.include({ method: 'patch', risk: 'low', diff: [{ path: 'spec.replicas', from: 1, to: 3 }] });
    expect((await cluster.get(ref))!.spec).to.deep.include({ replicas: 1 });
    const back = await revert.execute({ id: out.revert.id, planDigest: shown.planDigest }, operator('alice'));
    expect((await cluster.get(ref))!.spec).to.deep.include({ replicas: 3 });
    expect(back.revert.revertOf).to.equal(out.revert.id);
    // the revert entry records svc's risk of the undo
    expect(back.revert).to.deep.include({ risk: 'low' });
  });

  it('keeps the first 2,000 characters of a longer request (the tools cap their input there; the ledger holds to it whatever calls it)', async () => {
    const long = `scale web ${'because of load '.repeat(200)}`;
    const done = await recorder.write(
      { ...context(), request: long },
      { target: ref, change: { method: 'patch', patchType: 'merge', body: { spec: { replicas: 2 } } }, dryRun: { accepted: true } },
      () => cluster.patch(ref, { spec: { replicas: 2 } }),
    );
    expect(long.length).to.be.greaterThan(2000);
    expect((await entry(done.ledgerId)).request).to.equal(long.slice(0, 2000));
  });

  it('refuses when the object changed since (409 with the diff), and force reverts the recorded fields anyway', async () => {
    const done = await patchVia({ spec: { replicas: 3 } });
    await cluster.patch(ref, { spec: { template: { spec: { containers: [{ name: 'web', image: 'web:2' }] } } } });
    const err = await rejection<ConflictError>(revert.execute({ id: done.ledgerId! }, operator('alice')));
    expect(err).to.be.instanceOf(ConflictError);
    expect(err.message).to.match(/changed since chg_2_\w+ \(resourceVersion \S+ then, \S+ now\).*force/);
    expect((err.details as { diff: unknown[] }).diff).to.deep.equal([{ path: 'spec.template.spec.containers[name=web].image', from: 'web:1', to: 'web:2' }]);
    await revert.execute({ id: done.ledgerId!, force: true }, operator('alice'));
    expect((await cluster.get(ref))!.spec).to.deep.equal({ replicas: 1, template: { spec: { containers: [{ name: 'web', image: 'web:2' }] } } });
  });

  it('reverting a created object deletes it; reverting a deletion re-creates it from the recorded state', async () => {
    const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'shop' }, data: { mode: 'fast' } };
    const cmRef = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'settings' };
    const created = await recorder.write(
      context(),
      { target: cmRef, change: { method: 'apply', patchType: 'apply', body: cm }, dryRun: { accepted: true, object: cm } },
      () => cluster.apply(cm),
    );
    expect((await entry(created.ledgerId)).inverse).to.deep.equal({ method: 'delete' });
    expect((await entry(created.ledgerId)).before).to.equal(null);
    await revert.execute({ id: created.ledgerId! }, operator('alice'));
    expect(await cluster.get(cmRef)).to.equal(null);

    cluster.put({ ...cm, metadata: { ...cm.metadata, resourceVersion: '500' } });
    const deleted = await recorder.write(context(), { target: cmRef, change: { method: 'delete' }, dryRun: { accepted: true, object: cm } }, async () => {
      await cluster.delete(cmRef);
      return undefined;
    });
    const d = await entry(deleted.ledgerId);
    expect(d.inverse).to.deep.equal({
      method: 'create',
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'shop' }, data: { mode: 'fast' } },
    });
    expect(d).to.not.have.property('resourceVersionAfter');
    await revert.execute({ id: d.id }, operator('alice'));
    expect((await cluster.get(cmRef))!.data).to.deep.equal({ mode: 'fast' });
  });

  it('undoing a create ignores a field the cluster filled in since (a bound claim), never a label someone added or a field svc wrote that someone changed', async () => {
    const pvc: KubeObject = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data', namespace: 'shop' },
      spec: { storageClassName: 'standard', resources: { requests: { storage: '1Gi' } } },
    };
    const pvcRef = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'data' };
    const create = () =>
      recorder.write(context(), { target: pvcRef, change: { method: 'apply', patchType: 'apply', body: pvc }, dryRun: { accepted: true, object: pvc } }, () =>
        cluster.apply(pvc),
      );
    const created = await create();
    // the binder binds the claim: a field svc never wrote appears
    await cluster.patch(pvcRef, { spec: { volumeName: 'pv-0001' } });
    await revert.execute({ id: created.ledgerId! }, operator('alice'));
    expect(await cluster.get(pvcRef)).to.equal(null);

    const labelled = await create();
    // someone puts a label on it: theirs to keep, so the undo stops
    await cluster.patch(pvcRef, { metadata: { labels: { owner: 'data-team' } } });
    const kept = await rejection<ConflictError>(revert.execute({ id: labelled.ledgerId! }, operator('alice')));
    expect((kept.details as { diff: unknown[] }).diff).to.deep.equal([{ path: 'metadata.labels', to: { owner: 'data-team' } }]);
    await cluster.delete(pvcRef);

    const again = await create();
    // someone changes what svc wrote: the undo must not delete their claim
    await cluster.patch(pvcRef, { spec: { resources: { requests: { storage: '5Gi' } } } });
    const err = await rejection<ConflictError>(revert.execute({ id: again.ledgerId! }, operator('alice')));
    expect(err).to.be.instanceOf(ConflictError);
    expect((err.details as { diff: unknown[] }).diff).to.deep.equal([{ path: 'spec.resources.requests.storage', from: '1Gi', to: '5Gi' }]);
    expect(await cluster.get(pvcRef)).to.not.equal(null);
  });

  it('a refused write leaves an entry with the refusal, and reverting it is 409', async () => {
    const refused = await recorder.write(
      context(),
      { target: ref, change: { method: 'patch', patchType: 'merge', body: { spec: { replicas: -1 } } }, dryRun: { accepted: true } },
      async () => {
        throw new ConflictError('Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1', { reason: 'Invalid' });
      },
    );
    const e = await entry(refused.ledgerId);
    expect(e.outcome).to.deep.equal({ status: 'refused', reason: 'Invalid', message: 'Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1' });
    expect(e.inverse).to.equal(null);
    expect(refused.error).to.be.instanceOf(ConflictError);
    const err = await rejection(revert.execute({ id: e.id }, operator('alice')));
    expect(err).to.be.instanceOf(ConflictError);
    expect(err.message).to.match(/was not applied \(refused/);
  });

  it('operators revert only their own changes, admins any; viewers none', async () => {
    const done = await patchVia({ spec: { replicas: 2 } }, operator('bob'));
    const other = await rejection(revert.execute({ id: done.ledgerId! }, operator('alice')));
    expect(other).to.be.instanceOf(ForbiddenError);
    expect(other.message).to.include('admin');
    const viewer: Caller = { id: 'tokens-file:svc:v', username: 'v', groups: [], roles: ['viewer'], kind: 'tokens-file' };
    expect(await rejection(revert.execute({ id: done.ledgerId! }, viewer))).to.be.instanceOf(ForbiddenError);
    await revert.execute({ id: done.ledgerId! }, STATIC_TOKEN_CALLER);
    expect((await cluster.get(ref))!.spec).to.deep.include({ replicas: 1 });
  });

  it("attack: the same name from another kind of token (OIDC bob, a tokens-file admin) is not the owner; an entry without an id is an admin's", async () => {
    const done = await patchVia({ spec: { replicas: 2 } }, operator('bob'));
    expect((await entry(done.ledgerId)).caller.id).to.equal('tokens-file:svc:bob');
    const oidcBob: Caller = { ...operator('bob'), id: 'oidc:https://idp.test:bob', kind: 'oidc' };
    expect((await rejection(revert.execute({ id: done.ledgerId! }, oidcBob))).message).to.include('needs the admin role');
    const byStatic = await patchVia({ spec: { replicas: 3 } }, { ...STATIC_TOKEN_CALLER, roles: [...rolesUpTo('operator')] });
    const fileAdmin: Caller = { ...operator('admin'), id: 'tokens-file:svc:admin' };
    expect(await rejection(revert.execute({ id: byStatic.ledgerId! }, fileAdmin))).to.be.instanceOf(ForbiddenError);
    // an entry recorded before ids were: only an admin reverts it
    const at = ledger.texts.findIndex((t) => t.includes(done.ledgerId!));
    ledger.texts[at] = ledger.texts[at].replace('"id":"tokens-file:svc:bob",', '');
    expect((await entry(done.ledgerId)).caller).to.not.have.property('id');
    expect((await rejection(revert.execute({ id: done.ledgerId! }, operator('bob')))).message).to.include('recorded without an identity id');
  });

  it('keeps Secret values and the last-applied annotation out of every field, and has no inverse for Secret data', async () => {
    const secret: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db', namespace: 'shop', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"data":{"password":"aHVudGVyMg=="}}' } },
      data: { password: 'aHVudGVyMg==' },
    };
    const sRef = { apiVersion: 'v1', kind: 'Secret', namespace: 'shop', name: 'db' };
    const done = await recorder.write(
      context(),
      { target: sRef, change: { method: 'apply', patchType: 'apply', body: secret }, dryRun: { accepted: true, object: secret } },
      () => cluster.apply(secret),
    );
    const text = ledger.texts.join('\n');
    expect(text).to.not.include('aHVudGVyMg');
    expect(text).to.not.include('hunter2');
    expect((await entry(done.ledgerId)).change.body).to.deep.include({ data: { password: '***' } });
  });
});
