import type { Caller } from '../../domain/auth/caller.js';
import { LimitReachedError } from '../../domain/errors.js';
import type { Clock } from '../../domain/ports/clock.js';
import { NO_METRICS, type Metrics } from '../../domain/ports/metrics.js';
import type { RunStore } from '../../domain/ports/run-store.js';
import { newRunId, type RunRecord } from '../../domain/runs/run.js';
import type { ToolRegistry } from '../../domain/tools/tool-registry.js';
import { authorisedInput, type ClusterChoice } from '../execute-tool.js';
import { iso } from './finish-run.js';
import { runCallerOf } from './run-access.js';
import type { RunExecutor } from './run-executor.js';

export interface StartRunInput {
  toolName: string;
  params: unknown;
  requestId: string;
  caller: Caller;
  /** `X-Svc-Git-Token` for a deployManifests that pushes: kept with the queued job in memory, never in the run's record. */
  gitToken?: string;
}

/**
 * Starts a tool run without holding the request: the caller's role and the
 * input are checked first (a refused call or a bad input is the same 403 or
 * 400 as the synchronous call, and no run exists), the caller's limit is checked, the run is stored `queued` and
 * handed to this replica's executor. Answers the stored record at once.
 */
export class StartRun {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly store: RunStore,
    private readonly executor: RunExecutor,
    private readonly clock: Clock,
    /** 32 lowercase hex digits from a CSPRNG. */
    private readonly randomHex32: () => string,
    /** Role refusals and the per-caller limit's refusals (budget `runs`). */
    private readonly metrics: Metrics = NO_METRICS,
    /** The fleet (SVC_CLUSTERS): a run's call is refused for its cluster as a direct call is. */
    private readonly fleet?: ClusterChoice,
  ) {}

  async execute(input: StartRunInput): Promise<RunRecord> {
    const params = authorisedInput(this.registry, input.caller, input.toolName, input.params, this.metrics, this.fleet);
    // the cluster the run works in, as the call itself chooses it (checked above); none without SVC_CLUSTERS
    const cluster = this.fleet?.choose(input.toolName, params)?.name;
    const who = runCallerOf(input.caller);
    const { maxPerCaller, leaseMs } = this.executor.limits;
    const now = this.clock.now();
    const record: RunRecord = {
      runId: newRunId(this.randomHex32()),
      tool: input.toolName,
      caller: who,
      ...(cluster ? { cluster } : {}),
      status: 'queued',
      createdAt: iso(now),
      owner: this.executor.owner,
      leaseUntil: now + leaseMs,
    };
    const made = await this.store.create(record, maxPerCaller);
    if (!made.created) {
      this.metrics.rateLimited('runs');
      throw new LimitReachedError(
        `You have ${made.active} runs queued or running, the most one caller may have (SVC_RUNS_MAX_PER_CALLER=${maxPerCaller}); wait for one to finish or cancel one with DELETE /api/v1/runs/{runId}`,
      );
    }
    this.executor.enqueue({ runId: record.runId, tool: input.toolName, params, requestId: input.requestId, caller: input.caller, gitToken: input.gitToken });
    return record;
  }
}
