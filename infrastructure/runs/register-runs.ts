import { randomBytes } from 'node:crypto';
import type { ExecuteTool } from '../../application/execute-tool.js';
import { CancelRun } from '../../application/runs/cancel-run.js';
import { GetRun } from '../../application/runs/get-run.js';
import { ListRuns } from '../../application/runs/list-runs.js';
import { RunExecutor } from '../../application/runs/run-executor.js';
import type { FollowUpRunsLink } from '../../application/runs/follow-up-runs.js';
import { StartRun } from '../../application/runs/start-run.js';
import { WatchRun } from '../../application/runs/watch-run.js';
import { StreamSlots } from '../../application/runs/stream-slots.js';
import type { RunStore } from '../../domain/ports/run-store.js';
import type { Logger } from '../../domain/ports/logger.js';
import type { Metrics } from '../../domain/ports/metrics.js';
import type { ToolRegistry } from '../../domain/tools/tool-registry.js';
import type { Config } from '../config/config.js';
import type { ClusterChoice } from '../../application/execute-tool.js';
import { SystemClock } from '../clock/system-clock.js';

/** How long a cancelled run's work may take to wind down (a write in flight ends and is recorded) before the run ends anyway. */
const CANCEL_GRACE_MS = 1500;

/** What the runs module is built from. */
export interface RunsDeps {
  /** The fleet (SVC_CLUSTERS), when svc serves several clusters. */
  fleet?: ClusterChoice;
  config: Config;
  store: RunStore;
  /** What a run executes: the same use case as a synchronous call. */
  executeTool: ExecuteTool;
  registry: ToolRegistry;
  logger: Logger;
  metrics: Metrics;
  /** Bound to this replica's executor: where the AI tools' verdicts that come after the answer run. */
  followUps?: FollowUpRunsLink;
}

/** What the runs module gives the rest of the composition. */
export interface RunsExports {
  store: RunStore;
  executor: RunExecutor;
  startRun: StartRun;
  getRun: GetRun;
  listRuns: ListRuns;
  cancelRun: CancelRun;
  watchRun: WatchRun;
  /** Run first when the server stops: runs end as interrupted (not left to their lease), then the store closes. */
  onShutdown: Array<() => Promise<void>>;
}

/**
 * The runs of `Prefer: respond-async`: store, this replica's executor and the
 * use cases over them. Takes every input as an argument and touches no
 * container.
 */
export function registerRuns(deps: RunsDeps): RunsExports {
  const { config, store, metrics } = deps;
  // Wall-clock time, not the composition's clock: leases are judged across replicas, and a test's clock whose
  // waits pass at once (a deploy's readiness polls) would otherwise make a run's lease lapse mid-run.
  const clock = new SystemClock();
  const executor = new RunExecutor(
    store,
    deps.executeTool,
    clock,
    deps.logger,
    { maxActive: config.runs.maxActive, maxPerCaller: config.runs.maxPerCaller, leaseMs: config.runs.leaseMs, cancelGraceMs: CANCEL_GRACE_MS },
    `replica-${randomBytes(8).toString('hex')}`,
    metrics,
    () => randomBytes(16).toString('hex'),
  );
  // the rest of a settle window a call left behind becomes a run of this executor
  deps.followUps?.bind(executor);
  return {
    store,
    executor,
    startRun: new StartRun(deps.registry, store, executor, clock, () => randomBytes(16).toString('hex'), metrics, deps.fleet),
    getRun: new GetRun(store, clock),
    listRuns: new ListRuns(store, clock),
    cancelRun: new CancelRun(store, executor, clock),
    watchRun: new WatchRun(store, clock, new StreamSlots(config.runs.streamsPerCaller)),
    // stop first (runs end as interrupted, not left to their lease), then the store
    onShutdown: [() => executor.stop(), () => store.close()],
  };
}
