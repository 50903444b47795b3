import { expect } from 'chai';
import { ProgressWriter } from '../../../application/runs/progress-writer.js';
import { MemoryRunStore } from '../../../infrastructure/runs/memory-run-store.js';
import { aRun } from '../../contract/run-store-contract.js';
import { CapturingLogger } from '../../support/capturing-logger.js';
import { FakeClock } from '../../support/fake-clock.js';

describe("application/runs/progress-writer: a run's progress events, in order, never failing the tool", () => {
  it('appends the events in the order they were reported, stamped by the clock, and none after close', async () => {
    const clock = new FakeClock();
    const store = new MemoryRunStore({ ttlMs: 60_000, clock });
    const run = aRun(clock, { status: 'running' });
    await store.create(run);
    const writer = new ProgressWriter(store, run.runId, clock, new CapturingLogger());
    writer.sink('model-call', { n: 1 });
    clock.advance(1000);
    writer.sink('model-call', { n: 2 });
    await writer.close();
    writer.sink('model-call', { n: 3 });
    await new Promise((r) => setImmediate(r));
    const events = await store.events(run.runId, 0);
    expect(events.map((e) => e.data)).to.deep.equal([{ n: 1 }, { n: 2 }]);
    expect(events.map((e) => e.at)).to.deep.equal([new Date(clock.now() - 1000).toISOString(), new Date(clock.now()).toISOString()]);
  });

  it('logs an event the store could not take and goes on with the next', async () => {
    const clock = new FakeClock();
    const store = new MemoryRunStore({ ttlMs: 60_000, clock });
    const run = aRun(clock, { status: 'running' });
    await store.create(run);
    const logger = new CapturingLogger();
    const append = store.append.bind(store);
    let calls = 0;
    store.append = async (id, event) => {
      if (++calls === 1) throw new Error('store down');
      return append(id, event);
    };
    const writer = new ProgressWriter(store, run.runId, clock, logger);
    writer.sink('model-call', { n: 1 });
    writer.sink('model-call', { n: 2 });
    await writer.close();
    expect((await store.events(run.runId, 0)).map((e) => e.data)).to.deep.equal([{ n: 2 }]);
    expect(logger.lines).to.deep.include({ level: 'warn', msg: 'run progress not recorded', fields: { runId: run.runId, error: 'store down' } });
  });
});
