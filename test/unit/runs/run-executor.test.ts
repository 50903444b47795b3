import { expect } from 'chai';
import type { ExecuteToolInput } from '../../../application/execute-tool.js';
import { RunExecutor, type RunJob, type RunLimits } from '../../../application/runs/run-executor.js';
import { ANONYMOUS_CALLER } from '../../../domain/auth/caller.js';
import { ERROR_CODES, ValidationError } from '../../../domain/errors.js';
import { MemoryRunStore } from '../../../infrastructure/runs/memory-run-store.js';
import { aRun } from '../../contract/run-store-contract.js';
import { CapturingLogger } from '../../support/capturing-logger.js';
import { FakeClock } from '../../support/fake-clock.js';

/** A tool that answers when the test says, and remembers what it was called with. */
class HeldTool {
  readonly calls: ExecuteToolInput[] = [];
  private readonly answers = new Map<string, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
  execute = (input: ExecuteToolInput) => {
    this.calls.push(input);
    return new Promise<never>((resolve, reject) => this.answers.set(input.run!.runId!, { resolve: resolve as (v: unknown) => void, reject }));
  };
  answer(runId: string, value: unknown): void {
    this.answers.get(runId)!.resolve({ output: value });
  }
  fail(runId: string, error: unknown): void {
    this.answers.get(runId)!.reject(error);
  }
}

const LIMITS: RunLimits = { maxActive: 1, maxPerCaller: 5, leaseMs: 30_000, cancelGraceMs: 1000 };
const settle = () => new Promise((r) => setTimeout(r, 5));

describe('application/runs/run-executor: the runs this replica accepted, at most maxActive at a time', () => {
  let clock: FakeClock;
  let store: MemoryRunStore;
  let tool: HeldTool;
  let executor: RunExecutor;

  const queued = async (): Promise<RunJob> => {
    const record = aRun(clock, { owner: 'replica-a' });
    await store.create(record);
    return {
      runId: record.runId,
      tool: 'operate',
      params: { intent: 'x' },
      requestId: `req-${record.runId}`,
      caller: ANONYMOUS_CALLER,
      gitToken: 'git-token-1',
    };
  };

  beforeEach(() => {
    clock = new FakeClock();
    store = new MemoryRunStore({ ttlMs: 600_000, clock });
    tool = new HeldTool();
    executor = new RunExecutor(store, tool, clock, new CapturingLogger(), LIMITS, 'replica-a');
  });

  it("runs one at a time, the next waiting queued, each ending with the tool's answer", async () => {
    const [a, b] = [await queued(), await queued()];
    executor.enqueue(a);
    executor.enqueue(b);
    await settle();
    expect(tool.calls.map((c) => c.run!.runId)).to.deep.equal([a.runId]);
    expect(tool.calls[0]).to.deep.include({ toolName: 'operate', gitToken: 'git-token-1' });
    expect((await store.get(b.runId))!.status).to.equal('queued');
    tool.answer(a.runId, { ok: 1 });
    await settle();
    expect(await store.get(a.runId)).to.deep.include({ status: 'succeeded', result: { output: { ok: 1 } } });
    expect(tool.calls.map((c) => c.run!.runId)).to.deep.equal([a.runId, b.runId]);
  });

  it('fails a run with the domain error the call would have answered, and hides an unexpected one', async () => {
    const [a, b] = [await queued(), await queued()];
    executor.enqueue(a);
    await settle();
    tool.fail(a.runId, new ValidationError('bad input'));
    await settle();
    expect((await store.get(a.runId))!.error).to.deep.equal({ code: ERROR_CODES.VALIDATION_ERROR, message: 'bad input' });
    executor.enqueue(b);
    await settle();
    tool.fail(b.runId, new Error('stack with secrets'));
    await settle();
    expect((await store.get(b.runId))!.error!.message).to.equal(`The run failed unexpectedly; see the server log for request ${b.requestId}`);
  });

  it('aborts the run on a cancel from any replica, and ends it cancelled once the grace period passed', async () => {
    const a = await queued();
    executor.enqueue(a);
    await settle();
    await store.requestCancel(a.runId);
    expect(tool.calls[0].run!.signal!.aborted).to.equal(true);
    clock.advance(LIMITS.cancelGraceMs);
    await settle();
    const ended = await store.get(a.runId);
    expect(ended!.status).to.equal('cancelled');
    expect(ended!.error!.message).to.match(/^Cancelled; done before the cancel/);
  });

  it('does not start a run cancelled while queued, and forgets it', async () => {
    const [a, b] = [await queued(), await queued()];
    executor.enqueue(a);
    executor.enqueue(b);
    executor.forget(b.runId);
    await settle();
    tool.answer(a.runId, 1);
    await settle();
    expect(tool.calls).to.have.length(1);
  });

  it('renews the lease of the runs it holds, and on stop ends every one of them interrupted', async () => {
    const [a, b] = [await queued(), await queued()];
    executor.enqueue(a);
    executor.enqueue(b);
    await settle();
    clock.advance(LIMITS.leaseMs / 3);
    await settle();
    expect((await store.get(b.runId))!.leaseUntil).to.equal(clock.now() + LIMITS.leaseMs);
    await executor.stop();
    for (const id of [a.runId, b.runId]) expect((await store.get(id))!.error!.code).to.equal(ERROR_CODES.INTERRUPTED);
    expect(tool.calls[0].run!.signal!.aborted).to.equal(true);
  });
});
