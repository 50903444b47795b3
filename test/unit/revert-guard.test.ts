import { expect } from 'chai';
import { ChangeRecorder, type WriteContext } from '../../application/ledger/change-recorder.js';
import type { PolicySource } from '../../application/actions/policy-source.js';
import { RevertChange } from '../../application/ledger/revert-change.js';
import { OPEN_WRITE_SCOPE, type WriteScope } from '../../domain/actions/write-scope.js';
import type { ApprovalPolicy } from '../../domain/auth/session-owner.js';
import { rolesUpTo, type Caller } from '../../domain/auth/caller.js';
import { NO_SECOND_APPROVER } from '../../domain/auth/session-owner.js';
import { ConflictError, ForbiddenError, ValidationError } from '../../domain/errors.js';
import type { ChangeEntry } from '../../domain/ledger/change-entry.js';
import type { NamedPolicy } from '../../domain/orgdata/policy-constraint.js';
import { NO_METRICS, type RefusalReason } from '../../domain/ports/metrics.js';
import { parseKindName } from '../../domain/write-guard/kind-names.js';
import { FakeChangeLedger } from '../fakes/fake-change-ledger.js';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { guardOver } from '../fakes/null-safety.js';
import { FakeClock } from '../support/fake-clock.js';
import { shopWebDeployment as deployment, shopWebRef as ref } from '../support/ledger-records.js';
import { rejection } from '../support/rejection.js';

const person = (username: string, role: 'operator' | 'admin' = 'operator', kind: Caller['kind'] = 'tokens-file'): Caller => ({
  id: `${kind}:svc:${username}`,
  username,
  groups: [],
  roles: [...rolesUpTo(role)],
  kind,
});
const AT_MOST_TWO: NamedPolicy = {
  id: 'max-replicas',
  description: 'at most 2 replicas',
  constraints: [{ kind: 'Deployment', field: 'spec.replicas', maximum: 2, message: 'at most 2 replicas' }],
};

/** Attacks on the revert: it passes the write guard like any write (issue 30 item 11); after each refusal nothing was written. */
describe('revert through the write guard: allow-lists, policies, risk, preview and planDigest, second approver (fakes)', () => {
  let cluster: FakeCluster;
  let ledger: FakeChangeLedger;
  let recorder: ChangeRecorder;
  let refusals: RefusalReason[];
  let rv: number;
  const revertWith = (guard: { scope?: WriteScope; policies?: PolicySource; approval?: ApprovalPolicy }) =>
    new RevertChange(
      ledger,
      guardOver(cluster, {
        scope: guard.scope ?? OPEN_WRITE_SCOPE,
        policies: guard.policies ?? { forText: async () => [], stored: async () => ({ policies: [] }) },
      }),
      recorder,
      { approval: guard.approval ?? NO_SECOND_APPROVER, metrics: { ...NO_METRICS, refusal: (r) => void refusals.push(r) } },
    );
  const context = (caller: Caller): WriteContext => ({ caller, tool: 'operate', request: 'web', approval: { mode: 'manual', by: caller.username } });
  const entry = async (id: string | undefined) => (await ledger.get(id!)) as ChangeEntry;
  const writes = () => cluster.writes.length;

  async function patched(patch: Record<string, unknown>, caller = person('alice')) {
    return recorder.write(context(caller), { target: ref, change: { method: 'patch', patchType: 'merge', body: patch }, dryRun: { accepted: true } }, () =>
      cluster.patch(ref, patch),
    );
  }

  async function created(caller = person('alice')) {
    await cluster.delete(ref);
    const d = deployment(1);
    return recorder.write(
      context(caller),
      { target: ref, change: { method: 'apply', patchType: 'apply', body: d }, dryRun: { accepted: true, object: d } },
      () => cluster.apply(d),
    );
  }

  beforeEach(() => {
    rv = 100;
    refusals = [];
    cluster = new FakeCluster();
    cluster.onWrite = (o) => ({ ...o, metadata: { ...o.metadata, resourceVersion: String(++rv) } });
    cluster.put({ ...deployment(1), metadata: { ...deployment(1).metadata, resourceVersion: '100' } });
    ledger = new FakeChangeLedger(new FakeClock());
    recorder = new ChangeRecorder(ledger, cluster);
  });

  it('SVC_WRITE_KINDS that no longer name the kind refuse the undo: 400 with the reason, nothing written, counted as allow-list', async () => {
    const done = await patched({ spec: { replicas: 3 } });
    const before = writes();
    const revert = revertWith({ scope: { namespaces: [], kinds: [parseKindName('ConfigMap')] } });
    const err = await rejection<ValidationError>(revert.execute({ id: done.ledgerId! }, person('alice')));
    expect(err).to.be.instanceOf(ValidationError);
    expect(err.message).to.include('Deployment shop/web is outside SVC_WRITE_KINDS (ConfigMap)');
    expect(err.details).to.deep.equal({ reason: 'OutsideWriteScope' });
    // the preview says the same: the guard is one
    expect((await rejection(revert.preview({ id: done.ledgerId! }, person('alice')))).message).to.include('outside SVC_WRITE_KINDS');
    expect(writes()).to.equal(before);
    expect((await cluster.get(ref))!.spec).to.deep.include({ replicas: 3 });
    expect(refusals).to.deep.equal(['allow-list', 'allow-list']);
  });

  it('SVC_WRITE_NAMESPACES outside the object refuse the undo', async () => {
    const done = await patched({ spec: { replicas: 3 } });
    const err = await rejection(revertWith({ scope: { namespaces: ['prod'], kinds: [] } }).execute({ id: done.ledgerId! }, person('alice')));
    expect(err).to.be.instanceOf(ValidationError);
    expect(err.message).to.include('outside SVC_WRITE_NAMESPACES (prod)');
    expect((await cluster.get(ref))!.spec).to.deep.include({ replicas: 3 });
  });

  it("a stored policy the undo's object breaks refuses it (400 PolicyViolation), checked on the dry run's object", async () => {
    cluster.put({ ...deployment(3), metadata: { ...deployment(3).metadata, resourceVersion: '200' } });
    const done = await patched({ spec: { replicas: 2 } });
    const revert = revertWith({ policies: { forText: async () => [], stored: async () => ({ policies: [AT_MOST_TWO] }) } });
    const err = await rejection<ValidationError>(revert.execute({ id: done.ledgerId! }, person('alice')));
    expect(err).to.be.instanceOf(ValidationError);
    expect(err.message).to.include('max-replicas');
    expect(err.details).to.deep.equal({ reason: 'PolicyViolation' });
    expect((await cluster.get(ref))!.spec).to.deep.include({ replicas: 2 });
    expect(refusals).to.deep.equal(['policy']);
    // policies svc cannot read refuse it too
    const unreadable = revertWith({ policies: { forText: async () => [], stored: async () => ({ policies: [], unreadable: 'the store is down' }) } });
    expect((await rejection<ValidationError>(unreadable.execute({ id: done.ledgerId! }, person('alice')))).details).to.deep.equal({
      reason: 'PoliciesUnreadable',
    });
  });

  it('an undo bringing back an image from a registry outside SVC_IMAGE_REGISTRIES is refused', async () => {
    cluster.put({ ...deployment(1, 'evil.example/miner:1'), metadata: { ...deployment(1).metadata, resourceVersion: '300' } });
    const done = await patched({ spec: { template: { spec: { containers: [{ name: 'web', image: 'ghcr.io/shop/web:2' }] } } } });
    const revert = revertWith({ scope: { namespaces: [], kinds: [], imageRegistries: ['ghcr.io'] } });
    const err = await rejection<ValidationError>(revert.execute({ id: done.ledgerId! }, person('alice')));
    expect(err.details).to.deep.equal({ reason: 'ImageRegistry' });
    expect(err.message).to.include('evil.example/miner:1');
    expect(((await cluster.get(ref))!.spec as Record<string, unknown>).template).to.deep.equal({
      spec: { containers: [{ name: 'web', image: 'ghcr.io/shop/web:2' }] },
    });
  });

  it('preview: the dry run, diff and risk of the undo with its planDigest, nothing written; a stale planDigest is 409 and writes nothing', async () => {
    const done = await patched({ spec: { replicas: 3 } });
    const revert = revertWith({});
    const before = writes();
    const shown = await revert.preview({ id: done.ledgerId! }, person('alice'));
    // the undo scales 3 back to 1: fewer replicas, an availability change
    expect(shown.preview).to.deep.include({
      method: 'patch',
      target: ref,
      risk: 'medium',
      diff: [{ path: 'spec.replicas', from: 3, to: 1 }],
    });
    expect(shown.planDigest).to.match(/^sha256:[0-9a-f]{64}$/);
    expect(writes()).to.equal(before);
    // the object moves (a new resourceVersion, the same fields): the undo is pinned to another version, so another plan
    const live = (await cluster.get(ref))!;
    cluster.put({ ...live, metadata: { ...live.metadata, resourceVersion: '999' } });
    const stale = await rejection<ConflictError>(revert.execute({ id: done.ledgerId!, planDigest: shown.planDigest }, person('alice')));
    expect(stale).to.be.instanceOf(ConflictError);
    expect(stale.message).to.include('changed since it was previewed');
    expect(writes()).to.equal(before);
    const fresh = await revert.preview({ id: done.ledgerId! }, person('alice'));
    await revert.execute({ id: done.ledgerId!, planDigest: fresh.planDigest }, person('alice'));
    expect((await cluster.get(ref))!.spec).to.deep.include({ replicas: 1 });
  });

  it("SVC_REQUIRE_SECOND_APPROVER: the author alone gets 403 for a high-risk undo (by svc's risk: deleting a Deployment), under any of their tokens", async () => {
    const done = await created();
    const revert = revertWith({ approval: { requireSecondApprover: true, protectedNamespaces: [] } });
    const shown = await revert.preview({ id: done.ledgerId! }, person('alice'));
    expect(shown.preview).to.deep.include({ method: 'delete', risk: 'high', secondApproverRequired: 'it includes a high-risk action' });
    const before = writes();
    const own = await rejection<ForbiddenError>(revert.execute({ id: done.ledgerId! }, person('alice')));
    expect(own).to.be.instanceOf(ForbiddenError);
    expect(own.message).to.include(`The revert of change ${done.ledgerId} needs a second approver`);
    // with the digest of the preview too: the author cannot approve their own
    expect(await rejection(revert.execute({ id: done.ledgerId!, planDigest: shown.planDigest }, person('alice')))).to.be.instanceOf(ForbiddenError);
    // an admin token carrying the author's name is the same person
    const alsoAlice = person('Alice', 'admin', 'static');
    expect((await rejection(revert.execute({ id: done.ledgerId!, planDigest: shown.planDigest }, alsoAlice))).message).to.include('second approver');
    expect(writes()).to.equal(before);
    expect(await cluster.get(ref)).to.not.equal(null);
    // another person (an admin: an operator reverts only their own) without the digest: 400; with it, the undo runs
    const bob = person('bob', 'admin');
    const blind = await rejection(revert.execute({ id: done.ledgerId! }, bob));
    expect(blind).to.be.instanceOf(ValidationError);
    expect(blind.message).to.include('send the planDigest you reviewed');
    expect(writes()).to.equal(before);
    const undone = await revert.execute({ id: done.ledgerId!, planDigest: shown.planDigest }, bob);
    expect(await cluster.get(ref)).to.equal(null);
    // the ledger records svc's risk of the undo
    expect((await entry(undone.revert.id)).risk).to.equal('high');
    expect(refusals.filter((r) => r === 'risk')).to.have.length(4);
  });

  it('a revert of a revert re-applies a change: refused without a preview planDigest, nothing written', async () => {
    const done = await patched({ spec: { replicas: 3 } });
    const revert = revertWith({});
    const first = await revert.execute({ id: done.ledgerId! }, person('alice'));
    const before = writes();
    const err = await rejection<ValidationError>(revert.execute({ id: first.revert.id }, person('alice')));
    expect(err).to.be.instanceOf(ValidationError);
    expect(err.message).to.include(`is itself the revert of ${done.ledgerId}`);
    expect(writes()).to.equal(before);
    expect((await cluster.get(ref))!.spec).to.deep.include({ replicas: 1 });
    // a made-up digest is a 409, not a pass
    const wrong = await rejection(revert.execute({ id: first.revert.id, planDigest: `sha256:${'0'.repeat(64)}` }, person('alice')));
    expect(wrong).to.be.instanceOf(ConflictError);
    expect(writes()).to.equal(before);
  });
});
