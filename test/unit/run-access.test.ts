import { expect } from 'chai';
import { rolesUpTo, type Caller } from '../../domain/auth/caller.js';
import { GetRun } from '../../application/runs/get-run.js';
import { ListRuns } from '../../application/runs/list-runs.js';
import { WatchRun } from '../../application/runs/watch-run.js';
import { loadRun, maySeeRun, runCallerOf } from '../../application/runs/run-access.js';
import type { RunEvent } from '../../domain/runs/run.js';
import { MemoryRunStore } from '../../infrastructure/runs/memory-run-store.js';
import { aRun } from '../contract/run-store-contract.js';
import { FakeClock } from '../support/fake-clock.js';
import { rejection } from '../support/rejection.js';

const person = (username: string, role: 'viewer' | 'operator' | 'admin'): Caller => ({
  id: `oidc:https://idp.test:${username}`,
  username,
  groups: [],
  roles: rolesUpTo(role),
  kind: 'oidc',
});

describe('runs: who sees what, and a replica that stopped', () => {
  const clock = new FakeClock();
  const ann = person('ann', 'operator');
  const bob = person('bob', 'viewer');
  const root = person('root', 'admin');

  it("a caller lists and reads only their own runs (another's is the same 404 as an unknown one); an admin sees all", async () => {
    const store = new MemoryRunStore({ ttlMs: 60_000, clock });
    const annRun = aRun(clock, { caller: { id: ann.id, username: 'ann', kind: 'oidc' } }, 1);
    const bobRun = aRun(clock, { caller: { id: bob.id, username: 'bob', kind: 'oidc' } });
    // same name, another kind of identity: not the same caller
    const staticAnn = aRun(clock, { caller: { username: 'ann', kind: 'static' } });
    // same name and kind, another issuer: not the same caller either; nor an OIDC run stored before ids were
    const otherIssuer = aRun(clock, { caller: { id: 'oidc:https://other.test:ann', username: 'ann', kind: 'oidc' } });
    const legacy = aRun(clock, { caller: { username: 'ann', kind: 'oidc' } });
    for (const r of [annRun, bobRun, staticAnn, otherIssuer, legacy]) await store.create(r);
    const list = new ListRuns(store, clock);
    expect((await list.execute({ caller: ann })).runs.map((r) => r.runId)).to.deep.equal([annRun.runId]);
    expect((await list.execute({ caller: bob })).runs.map((r) => r.runId)).to.deep.equal([bobRun.runId]);
    expect((await list.execute({ caller: root })).runs).to.have.length(5);
    expect(await rejection(new GetRun(store, clock).execute(legacy.runId, ann))).to.include({ code: 'NOT_FOUND' });
    const get = new GetRun(store, clock);
    expect((await get.execute(annRun.runId, ann)).runId).to.equal(annRun.runId);
    const refused = await rejection(get.execute(annRun.runId, bob));
    expect(refused).to.include({ code: 'NOT_FOUND' });
    expect((await rejection(get.execute('run_ffffffffffffffffffffffffffffffff', bob))).message).to.equal(
      refused.message.replace(annRun.runId, 'run_ffffffffffffffffffffffffffffffff'),
    );
    expect(await rejection(new WatchRun(store, clock).execute(annRun.runId, bob, 0, () => undefined))).to.include({ code: 'NOT_FOUND' });
    const view = await get.execute(annRun.runId, root);
    expect(view).not.to.have.any.keys('owner', 'leaseUntil', 'cancelRequested');
  });

  it('a run whose lease lapsed is failed as interrupted on the first read, and a watcher gets its done event', async () => {
    const store = new MemoryRunStore({ ttlMs: 600_000, clock });
    const run = aRun(clock, { status: 'running', caller: { id: ann.id, username: 'ann', kind: 'oidc' }, leaseUntil: clock.now() + 1000 });
    await store.create(run);
    const seen: RunEvent[] = [];
    const watch = await new WatchRun(store, clock).execute(run.runId, ann, 0, (e) => seen.push(e));
    expect(seen).to.deep.equal([]);
    clock.advance(1001);
    await watch.check();
    await watch.ended;
    expect(seen.map((e) => [e.type, e.data.status])).to.deep.equal([['done', 'failed']]);
    const view = await new GetRun(store, clock).execute(run.runId, ann);
    expect(view).to.deep.include({ status: 'failed', error: { code: 'INTERRUPTED', message: 'interrupted: the replica running it stopped' } });
  });
});

describe('run-access: the one rule of who sees a run (application/runs/run-access.ts)', () => {
  const clock = new FakeClock();
  const ann = person('ann', 'operator');
  const root = person('root', 'admin');
  // the same name under another kind of identity is another caller
  const annStatic: Caller = { ...ann, id: 'static:svc:ann', kind: 'static' };

  it('maySeeRun: the caller whose identity started it, or an admin', () => {
    const run = { caller: runCallerOf(ann) };
    expect(runCallerOf(ann)).to.deep.equal({ id: ann.id, username: 'ann', kind: 'oidc' });
    expect(maySeeRun(ann, run)).to.equal(true);
    expect(maySeeRun(root, run)).to.equal(true);
    expect(maySeeRun(annStatic, run)).to.equal(false);
  });

  it('loadRun: unknown, malformed and someone else`s runs are the same 404; a lapsed lease is settled as interrupted', async () => {
    const store = new MemoryRunStore({ ttlMs: 60_000, clock });
    const run = aRun(clock, { caller: runCallerOf(ann), status: 'running', leaseUntil: clock.now() - 1 });
    await store.create(run);
    const loaded = await loadRun(store, clock, run.runId, ann);
    expect(loaded).to.deep.include({ status: 'failed', error: { code: 'INTERRUPTED', message: 'interrupted: the replica running it stopped' } });
    const theirs = await rejection<Error>(loadRun(store, clock, run.runId, annStatic));
    expect(theirs.message).to.equal(`No run ${run.runId}: it is unknown, expired or not yours`);
    const malformed = await rejection<Error>(loadRun(store, clock, '../x', root));
    expect(malformed.message).to.equal('No run (malformed id): it is unknown, expired or not yours');
  });
});
