import { expect } from 'chai';
import { finishRun, settleInterrupted } from '../../../application/runs/finish-run.js';
import { ERROR_CODES } from '../../../domain/errors.js';
import { INTERRUPTED_MESSAGE } from '../../../domain/runs/run.js';
import { MemoryRunStore } from '../../../infrastructure/runs/memory-run-store.js';
import { aRun } from '../../contract/run-store-contract.js';
import { FakeClock } from '../../support/fake-clock.js';

describe('application/runs/finish-run: a run ends once, its done event last', () => {
  it('ends a run from the status given, with its finish time and one done event', async () => {
    const clock = new FakeClock();
    const store = new MemoryRunStore({ ttlMs: 60_000, clock });
    const run = aRun(clock, { status: 'running' });
    await store.create(run);
    const done = await finishRun(store, clock, run.runId, ['running'], { status: 'succeeded', result: { ok: true } });
    expect(done).to.deep.include({ status: 'succeeded', finishedAt: new Date(clock.now()).toISOString() });
    expect((await store.events(run.runId, 0)).map((e) => [e.type, e.data])).to.deep.equal([['done', { status: 'succeeded' }]]);
  });

  it('lets exactly one of a finish and a cancel win: the loser changes nothing and appends nothing', async () => {
    const clock = new FakeClock();
    const store = new MemoryRunStore({ ttlMs: 60_000, clock });
    const run = aRun(clock, { status: 'queued' });
    await store.create(run);
    const error = { code: ERROR_CODES.CANCELLED, message: 'cancelled' };
    const [cancel, finish] = await Promise.all([
      finishRun(store, clock, run.runId, ['queued'], { status: 'cancelled', error }),
      finishRun(store, clock, run.runId, ['queued'], { status: 'failed', error }),
    ]);
    expect([cancel?.status, finish?.status].filter(Boolean)).to.have.length(1);
    const events = await store.events(run.runId, 0);
    expect(events).to.have.length(1);
    expect(events[0].data).to.deep.equal({ status: cancel ? 'cancelled' : 'failed', error });
  });

  it('fails as interrupted a run whose lease lapsed, and leaves a live or finished one as it is', async () => {
    const clock = new FakeClock();
    const store = new MemoryRunStore({ ttlMs: 600_000, clock });
    const lapsed = aRun(clock, { status: 'running', leaseUntil: clock.now() - 1 });
    const live = aRun(clock, { status: 'running', leaseUntil: clock.now() + 1000 });
    for (const r of [lapsed, live]) await store.create(r);
    const settled = await settleInterrupted(store, clock, lapsed);
    expect(settled).to.deep.include({ status: 'failed', error: { code: ERROR_CODES.INTERRUPTED, message: INTERRUPTED_MESSAGE } });
    expect(await settleInterrupted(store, clock, live)).to.equal(live);
    expect(await settleInterrupted(store, clock, settled)).to.equal(settled);
    expect(await store.events(live.runId, 0)).to.deep.equal([]);
  });
});
