import { expect } from 'chai';
import { CancelRun } from '../../../application/runs/cancel-run.js';
import { finishRun } from '../../../application/runs/finish-run.js';
import { RunExecutor } from '../../../application/runs/run-executor.js';
import { svcAdmin } from '../../../domain/auth/caller.js';
import { ConflictError, ERROR_CODES } from '../../../domain/errors.js';
import { MemoryRunStore } from '../../../infrastructure/runs/memory-run-store.js';
import { aRun } from '../../contract/run-store-contract.js';
import { CapturingLogger } from '../../support/capturing-logger.js';
import { FakeClock } from '../../support/fake-clock.js';
import { rejection } from '../../support/rejection.js';

const admin = svcAdmin('static', 'root');
const limits = { maxActive: 1, maxPerCaller: 5, leaseMs: 30_000, cancelGraceMs: 1000 };

describe('application/runs/cancel-run: a queued run ends at once, a running one is told to stop', () => {
  let clock: FakeClock;
  let store: MemoryRunStore;
  let cancel: CancelRun;
  let forgotten: string[];

  beforeEach(() => {
    clock = new FakeClock();
    store = new MemoryRunStore({ ttlMs: 600_000, clock });
    const executor = new RunExecutor(store, { execute: async () => ({}) as never }, clock, new CapturingLogger(), limits, 'replica-a');
    forgotten = [];
    executor.forget = (runId) => void forgotten.push(runId);
    cancel = new CancelRun(store, executor, clock, 2500);
  });

  it('cancels a queued run at once, saying nothing was done, and takes it off the queue', async () => {
    const run = aRun(clock);
    await store.create(run);
    const view = await cancel.execute(run.runId, admin);
    expect(view.status).to.equal('cancelled');
    expect((await store.get(run.runId))!.error).to.deep.equal({ code: ERROR_CODES.CANCELLED, message: 'Cancelled before it started; nothing was done' });
    expect(forgotten).to.deep.equal([run.runId]);
  });

  it('asks a running run to stop and answers once it has ended', async () => {
    const run = aRun(clock, { status: 'running' });
    await store.create(run);
    const unsubscribe = await store.subscribe(run.runId, (s) => {
      if (s.type === 'cancel')
        void finishRun(store, clock, run.runId, ['running'], { status: 'cancelled', error: { code: ERROR_CODES.CANCELLED, message: 'stopped' } });
    });
    const view = await cancel.execute(run.runId, admin);
    unsubscribe();
    expect(view.status).to.equal('cancelled');
    expect(forgotten).to.deep.equal([]);
  });

  it('refuses with 409 a run that has already ended, and one that ended before the cancel reached it', async () => {
    const done = aRun(clock, { status: 'succeeded', finishedAt: new Date(clock.now()).toISOString() });
    await store.create(done);
    expect((await rejection(cancel.execute(done.runId, admin))).message).to.contain('has already ended (succeeded)');

    const racing = aRun(clock, { status: 'running' });
    await store.create(racing);
    store.requestCancel = async (runId) => void (await finishRun(store, clock, runId, ['running'], { status: 'succeeded', result: 1 }));
    const error = await rejection(cancel.execute(racing.runId, admin));
    expect(error).to.be.instanceOf(ConflictError);
    expect(error.message).to.contain('ended (succeeded) before the cancel reached it');
  });
});
