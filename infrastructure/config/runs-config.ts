import { int, type Env } from './env-parsers.js';

export interface RunsConfig {
  /** SVC_RUN_TTL: seconds a run's record lives after its last change. */
  ttlSeconds: number;
  /** SVC_RUNS_MAX_ACTIVE: runs running at once per replica; the rest wait, queued, in order. */
  maxActive: number;
  /** SVC_RUNS_MAX_PER_CALLER: queued and running runs per caller (429 RATE_LIMITED beyond). */
  maxPerCaller: number;
  /** SVC_RUNS_LEASE_MS: a replica that stops renewing for this long has its runs failed as interrupted. */
  leaseMs: number;
  /** SVC_RUN_STREAMS_PER_CALLER: event streams one caller may hold open on a replica (429 RATE_LIMITED beyond). */
  streamsPerCaller: number;
  /** SVC_RUNS_HEARTBEAT_MS: the comment line an event stream sends while nothing happens. */
  heartbeatMs: number;
}

export function parseRunsConfig(env: Env): RunsConfig {
  return {
    ttlSeconds: int(env, 'SVC_RUN_TTL', 86_400, 60, 2_592_000),
    maxActive: int(env, 'SVC_RUNS_MAX_ACTIVE', 32, 1, 10_000),
    maxPerCaller: int(env, 'SVC_RUNS_MAX_PER_CALLER', 4, 1, 10_000),
    leaseMs: int(env, 'SVC_RUNS_LEASE_MS', 30_000, 300, 600_000),
    streamsPerCaller: int(env, 'SVC_RUN_STREAMS_PER_CALLER', 20, 1, 1000),
    heartbeatMs: int(env, 'SVC_RUNS_HEARTBEAT_MS', 15_000, 20, 300_000),
  };
}
