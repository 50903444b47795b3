import { expect } from 'chai';
import type { RunSignal, RunStore } from '../../domain/ports/run-store.js';
import { MAX_RUN_EVENTS, type RunRecord } from '../../domain/runs/run.js';
import { FakeClock } from '../support/fake-clock.js';

export const RUN_CONTRACT_TTL_MS = 60 * 60 * 1000;

export type RunStoreFactory = (clock: FakeClock) => Promise<{ store: RunStore; cleanup: () => Promise<void>; expire?: (ms: number) => void }>;

let seq = 0;
/** A queued run of `username`, created `minutesAgo` before now. */
export function aRun(clock: FakeClock, over: Partial<RunRecord> = {}, minutesAgo = 0): RunRecord {
  seq += 1;
  return {
    runId: `run_${seq.toString(16).padStart(32, '0')}`,
    tool: 'operate',
    caller: { username: 'ann', kind: 'static' },
    status: 'queued',
    createdAt: new Date(clock.now() - minutesAgo * 60_000).toISOString(),
    owner: 'replica-a',
    leaseUntil: clock.now() + 30_000,
    ...over,
  };
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
};

/** The RunStore contract (domain/ports/run-store.ts), run against every adapter. */
export function runStoreContract(name: string, factory: RunStoreFactory): void {
  describe(`RunStore contract: ${name}`, () => {
    let clock: FakeClock;
    let store: RunStore;
    let cleanup: () => Promise<void>;
    let expire: ((ms: number) => void) | undefined;

    beforeEach(async () => {
      clock = new FakeClock();
      ({ store, cleanup, expire } = await factory(clock));
    });
    afterEach(async () => {
      await store.close();
      await cleanup();
    });

    it('stores and answers copies; unknown and malformed ids are undefined', async () => {
      const run = aRun(clock);
      await store.create(run);
      const got = await store.get(run.runId);
      expect(got).to.deep.equal(run);
      got!.status = 'failed';
      expect((await store.get(run.runId))!.status).to.equal('queued');
      expect(await store.get('run_ffffffffffffffffffffffffffffffff')).to.equal(undefined);
      expect(await store.get('../etc/passwd')).to.equal(undefined);
    });

    it('transitions only from the given statuses; of two at once exactly one wins', async () => {
      const run = aRun(clock);
      await store.create(run);
      expect(await store.transition(run.runId, ['running'], { status: 'succeeded' })).to.equal(undefined);
      const results = await Promise.all([
        store.transition(run.runId, ['queued'], { status: 'running', startedAt: 'a' }),
        store.transition(run.runId, ['queued'], { status: 'cancelled', finishedAt: 'b' }),
      ]);
      expect(results.filter(Boolean)).to.have.length(1);
      const done = await store.transition(run.runId, ['running', 'cancelled'], {
        status: 'succeeded',
        result: { list: [], nested: { empty: {} } },
        error: { code: 'X', message: 'm' },
      });
      expect(done).to.deep.include({ status: 'succeeded', result: { list: [], nested: { empty: {} } } });
      expect(await store.get(run.runId)).to.deep.equal(done);
      expect(await store.transition('run_ffffffffffffffffffffffffffffffff', ['queued'], { status: 'running' })).to.equal(undefined);
    });

    it('appends events with ids 1, 2, ... delivered to subscribers; replays after an id; keeps done beyond the cap', async () => {
      const run = aRun(clock);
      await store.create(run);
      const heard: RunSignal[] = [];
      const stop = await store.subscribe(run.runId, (s) => heard.push(s));
      const a = await store.append(run.runId, { type: 'model-call', at: 't1', data: { model: 'm' } });
      const b = await store.append(run.runId, { type: 'function-call', at: 't2', data: { name: 'get_resource' } });
      expect([a!.id, b!.id]).to.deep.equal([1, 2]);
      await until(() => heard.length === 2);
      expect(heard).to.deep.equal([
        { type: 'event', event: { id: 1, type: 'model-call', at: 't1', data: { model: 'm' } } },
        { type: 'event', event: { id: 2, type: 'function-call', at: 't2', data: { name: 'get_resource' } } },
      ]);
      expect((await store.events(run.runId, 1)).map((e) => e.id)).to.deep.equal([2]);
      await store.requestCancel(run.runId);
      await until(() => heard.length === 3);
      expect(heard[2]).to.deep.equal({ type: 'cancel' });
      expect((await store.get(run.runId))!.cancelRequested).to.equal(true);
      stop();
      await store.append(run.runId, { type: 'waiting', at: 't3', data: {} });
      await new Promise((r) => setTimeout(r, 30));
      expect(heard).to.have.length(3);
      for (let i = 3; i <= MAX_RUN_EVENTS; i++) await store.append(run.runId, { type: 'waiting', at: 't', data: {} });
      expect(await store.append(run.runId, { type: 'waiting', at: 't', data: {} })).to.equal(undefined);
      expect((await store.append(run.runId, { type: 'done', at: 't', data: {} }))!.id).to.equal(MAX_RUN_EVENTS + 1);
      expect(await store.append('run_ffffffffffffffffffffffffffffffff', { type: 'done', at: 't', data: {} })).to.equal(undefined);
    });

    it('lists newest first, by caller, tool, cluster and status, a page at a time; counts a caller’s active runs', async () => {
      const runs = [
        aRun(clock, {}, 3),
        aRun(clock, { tool: 'remediate', cluster: 'production' }, 2),
        aRun(clock, { caller: { username: 'bob', kind: 'static' } }, 1),
        aRun(clock, { status: 'running' }, 0),
      ];
      for (const r of runs) await store.create(r);
      const ann = 'static:svc:ann';
      const first = await store.list({ callerKey: ann, limit: 2 });
      expect(first.runs.map((r) => r.runId)).to.deep.equal([runs[3].runId, runs[1].runId]);
      const second = await store.list({ callerKey: ann, limit: 2, cursor: first.nextCursor });
      expect(second.runs.map((r) => r.runId)).to.deep.equal([runs[0].runId]);
      expect(second.nextCursor).to.equal(undefined);
      expect((await store.list({ limit: 10 })).runs).to.have.length(4);
      expect((await store.list({ limit: 10, tool: 'remediate' })).runs.map((r) => r.runId)).to.deep.equal([runs[1].runId]);
      expect((await store.list({ limit: 10, status: 'running' })).runs.map((r) => r.runId)).to.deep.equal([runs[3].runId]);
      // the run's cluster is kept as stored and filters (a run without one is in no cluster)
      const inProduction = await store.list({ limit: 10, cluster: 'production' });
      expect(inProduction.runs.map((r) => [r.runId, r.cluster])).to.deep.equal([[runs[1].runId, 'production']]);
      expect((await store.list({ limit: 10, cluster: 'staging' })).runs).to.deep.equal([]);
      expect((await store.get(runs[0].runId))!).not.to.have.property('cluster');
      expect(await store.countActive(ann)).to.equal(3);
      await store.transition(runs[0].runId, ['queued'], { status: 'cancelled' });
      expect(await store.countActive(ann)).to.equal(2);
      expect(await store.countActive('static:svc:bob')).to.equal(1);
    });

    it('creates within a per-caller limit atomically: of 10 racing creates with room for 4, exactly 4 are stored', async () => {
      const runs = Array.from({ length: 10 }, () => aRun(clock));
      const results = await Promise.all(runs.map((r) => store.create(r, 4)));
      const stored = runs.filter((_, i) => results[i].created);
      expect(stored).to.have.length(4);
      for (const r of results.filter((x) => !x.created)) expect(r).to.deep.equal({ created: false, active: 4 });
      for (const r of runs) expect(await store.get(r.runId)).to.deep.equal(stored.includes(r) ? r : undefined);
      expect(await store.countActive('static:svc:ann')).to.equal(4);
      // another caller has room of their own; an ended run frees its slot; no limit stores anyway
      expect(await store.create(aRun(clock, { caller: { username: 'bob', kind: 'static' } }), 4)).to.deep.equal({ created: true });
      await store.transition(stored[0].runId, ['queued'], { status: 'cancelled' });
      expect(await store.create(aRun(clock), 4)).to.deep.equal({ created: true });
      expect(await store.create(aRun(clock), 4)).to.deep.equal({ created: false, active: 4 });
      expect(await store.create(aRun(clock))).to.deep.equal({ created: true });
    });

    it('renews the lease only for the owner and only while active', async () => {
      const mine = aRun(clock);
      const other = aRun(clock, { owner: 'replica-b' });
      await store.create(mine);
      await store.create(other);
      await store.renewLease([mine.runId, other.runId], 'replica-a', clock.now() + 99_000);
      expect((await store.get(mine.runId))!.leaseUntil).to.equal(clock.now() + 99_000);
      expect((await store.get(other.runId))!.leaseUntil).to.equal(other.leaseUntil);
      await store.transition(mine.runId, ['queued'], { status: 'failed' });
      await store.renewLease([mine.runId], 'replica-a', clock.now() + 120_000);
      expect((await store.get(mine.runId))!.leaseUntil).to.equal(clock.now() + 99_000);
    });

    it('forgets a run its TTL after its last change', async function () {
      if (!expire) this.skip();
      const run = aRun(clock);
      await store.create(run);
      expire!(RUN_CONTRACT_TTL_MS - 1000);
      await store.transition(run.runId, ['queued'], { status: 'running' });
      expire!(RUN_CONTRACT_TTL_MS - 1000);
      expect(await store.get(run.runId)).to.not.equal(undefined);
      expire!(2000);
      expect(await store.get(run.runId)).to.equal(undefined);
      expect((await store.list({ limit: 10 })).runs).to.deep.equal([]);
    });
  });
}
