import { expect } from 'chai';
import type { RunExecutor, RunJob, RunLimits } from '../../../application/runs/run-executor.js';
import { StartRun } from '../../../application/runs/start-run.js';
import type { Caller } from '../../../domain/auth/caller.js';
import { ERROR_CODES } from '../../../domain/errors.js';
import { NO_METRICS, type Metrics } from '../../../domain/ports/metrics.js';
import { TOOL_DEFINITIONS } from '../../../domain/tools/tool-definitions.js';
import { ToolRegistry } from '../../../domain/tools/tool-registry.js';
import { MemoryRunStore } from '../../../infrastructure/runs/memory-run-store.js';
import { FakeClock } from '../../support/fake-clock.js';
import { rejection } from '../../support/rejection.js';

const LIMITS: RunLimits = { maxActive: 1, maxPerCaller: 2, leaseMs: 30_000, cancelGraceMs: 1000 };
const caller = (roles: Caller['roles'], username = 'ann'): Caller => ({ id: `tokens-file:svc:${username}`, username, groups: [], roles, kind: 'tokens-file' });
const OPERATOR = caller(['viewer', 'operator']);
const SOLUTION = `sol_${'a'.repeat(32)}`;

/** StartRun over a run store in memory and an executor that only keeps what it was handed. */
function startRun() {
  const clock = new FakeClock();
  const store = new MemoryRunStore({ ttlMs: 3_600_000, clock });
  const jobs: RunJob[] = [];
  const executor = { limits: LIMITS, owner: 'replica-a', enqueue: (job: RunJob) => void jobs.push(job) } as unknown as RunExecutor;
  const counted: string[] = [];
  const metrics: Metrics = { ...NO_METRICS, refusal: (r) => void counted.push(`refusal:${r}`), rateLimited: (b) => void counted.push(`limited:${b}`) };
  let n = 0;
  const hex = () => (++n).toString(16).padStart(32, '0');
  const start = new StartRun(new ToolRegistry(TOOL_DEFINITIONS), store, executor, clock, hex, metrics);
  return { clock, store, jobs, counted, start, runIdOf: (i: number) => `run_${i.toString(16).padStart(32, '0')}` };
}

describe('StartRun: a tool run accepted at once, checked first, stored queued and handed to the executor', () => {
  it('stores the run queued, leased to this replica, and hands the executor the validated input and the git token, which the record never holds', async () => {
    const { clock, store, jobs, start } = startRun();
    const record = await start.execute({
      toolName: 'deployManifests',
      params: { solutionId: SOLUTION },
      requestId: 'req-1',
      caller: OPERATOR,
      gitToken: 'git-token-3f',
    });
    expect(record).to.deep.include({
      runId: `run_${'1'.padStart(32, '0')}`,
      tool: 'deployManifests',
      status: 'queued',
      owner: 'replica-a',
      leaseUntil: clock.now() + LIMITS.leaseMs,
    });
    expect(record.caller).to.deep.include({ username: 'ann', kind: 'tokens-file' });
    expect(await store.get(record.runId)).to.deep.include({ status: 'queued', tool: 'deployManifests' });
    expect(JSON.stringify(await store.get(record.runId))).not.to.include('git-token-3f');
    expect(jobs).to.have.length(1);
    expect(jobs[0]).to.deep.include({
      runId: record.runId,
      tool: 'deployManifests',
      params: { solutionId: SOLUTION },
      requestId: 'req-1',
      gitToken: 'git-token-3f',
    });
  });

  it('a caller without the role is refused as the synchronous call is (403, counted), and no run exists', async () => {
    const { store, jobs, counted, start, runIdOf } = startRun();
    const err = await rejection(start.execute({ toolName: 'deployManifests', params: { solutionId: SOLUTION }, requestId: 'r', caller: caller(['viewer']) }));
    expect(err).to.have.property('code', ERROR_CODES.FORBIDDEN);
    expect(counted).to.deep.equal(['refusal:role']);
    expect(jobs).to.deep.equal([]);
    expect(await store.get(runIdOf(1))).to.equal(undefined);
  });

  it('an input the tool refuses is a 400 before anything is stored; an unknown tool is refused too', async () => {
    const { store, jobs, start, runIdOf } = startRun();
    const bad = await rejection(start.execute({ toolName: 'deployManifests', params: { solutionId: SOLUTION, timeout: 0 }, requestId: 'r', caller: OPERATOR }));
    expect(bad).to.have.property('code', ERROR_CODES.VALIDATION_ERROR);
    await rejection(start.execute({ toolName: 'noSuchTool', params: {}, requestId: 'r', caller: OPERATOR }));
    expect(jobs).to.deep.equal([]);
    expect(await store.get(runIdOf(1))).to.equal(undefined);
  });

  it("past the caller's limit of active runs the call is refused naming the setting, counted, and nothing more is queued; another caller still gets in", async () => {
    const { jobs, counted, start } = startRun();
    const call = (who: Caller) => start.execute({ toolName: 'deployManifests', params: { solutionId: SOLUTION }, requestId: 'r', caller: who });
    await call(OPERATOR);
    await call(OPERATOR);
    const err = await rejection(call(OPERATOR));
    expect(err.message).to.match(/^You have 2 runs queued or running.*SVC_RUNS_MAX_PER_CALLER=2/);
    expect(counted).to.deep.equal(['limited:runs']);
    expect(jobs).to.have.length(2);
    await call(caller(['viewer', 'operator'], 'bob'));
    expect(jobs).to.have.length(3);
  });
});
