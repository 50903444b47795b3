import { randomBytes } from 'node:crypto';
import type { DependencyContainer } from 'tsyringe';
import { CancelRun } from '../../application/runs/cancel-run.js';
import { GetRun } from '../../application/runs/get-run.js';
import { ListRuns } from '../../application/runs/list-runs.js';
import { RunExecutor } from '../../application/runs/run-executor.js';
import { StartRun } from '../../application/runs/start-run.js';
import { WatchRun } from '../../application/runs/watch-run.js';
import { StreamSlots } from '../../application/runs/stream-slots.js';
import type { RunStore } from '../../domain/ports/run-store.js';
import type { Config } from '../config/config.js';
import { SystemClock } from '../clock/system-clock.js';
import { TOKENS } from '../tokens.js';

/** How long a cancelled run's work may take to wind down (a write in flight ends and is recorded) before the run ends anyway. */
const CANCEL_GRACE_MS = 1500;

/** The runs of `Prefer: respond-async`: store, this replica's executor and the use cases over them. */
export function registerRuns(c: DependencyContainer, config: Config, store: RunStore): void {
  // Wall-clock time, not the container's clock: leases are judged across replicas, and a test's clock whose
  // waits pass at once (a deploy's readiness polls) would otherwise make a run's lease lapse mid-run.
  const clock = new SystemClock();
  const executor = new RunExecutor(
    store,
    c.resolve(TOKENS.ExecuteTool),
    clock,
    c.resolve(TOKENS.Logger),
    { maxActive: config.runs.maxActive, maxPerCaller: config.runs.maxPerCaller, leaseMs: config.runs.leaseMs, cancelGraceMs: CANCEL_GRACE_MS },
    `replica-${randomBytes(8).toString('hex')}`,
    c.resolve(TOKENS.Metrics),
  );
  c.register(TOKENS.RunStore, { useValue: store });
  c.register(TOKENS.RunExecutor, { useValue: executor });
  c.register(TOKENS.StartRun, {
    useValue: new StartRun(c.resolve(TOKENS.ToolRegistry), store, executor, clock, () => randomBytes(16).toString('hex'), c.resolve(TOKENS.Metrics)),
  });
  c.register(TOKENS.GetRun, { useValue: new GetRun(store, clock) });
  c.register(TOKENS.ListRuns, { useValue: new ListRuns(store, clock) });
  c.register(TOKENS.CancelRun, { useValue: new CancelRun(store, executor, clock) });
  c.register(TOKENS.WatchRun, { useValue: new WatchRun(store, clock, new StreamSlots(config.runs.streamsPerCaller)) });
  // stop first (runs end as interrupted, not left to their lease), then the store
  c.resolve(TOKENS.OnShutdown).unshift(
    () => executor.stop(),
    () => store.close(),
  );
}
