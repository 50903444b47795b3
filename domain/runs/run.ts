import { storedIdentityId, type Caller } from '../auth/caller.js';
import { LONG_RUNNING_TOOLS } from '../tools/tool-definitions.js';

/**
 * A tool run started without a held request (`Prefer: respond-async`): what
 * REST, MCP and the CLI poll, stream, list and cancel. Runs live where
 * sessions live (files for one process, Redis for replicas).
 */
export const RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** queued and running: a run that still holds a slot and may change. */
export const ACTIVE_STATUSES: readonly RunStatus[] = ['queued', 'running'];
export const isFinished = (status: RunStatus): boolean => !ACTIVE_STATUSES.includes(status);

/** The progress events every AI tool reports through the shared parts (tool loop, model and cluster ports). */
export const RUN_EVENT_TYPES = ['model-call', 'function-call', 'dry-run', 'applied', 'waiting', 'scanned', 'verify', 'done'] as const;
export type RunEventType = (typeof RUN_EVENT_TYPES)[number];

/** One progress event; `id` counts from 1 within its run (the SSE id, what `Last-Event-ID` names). */
export interface RunEvent {
  id: number;
  type: RunEventType;
  /** ISO 8601 */
  at: string;
  /** Small, bounded facts: the function name, the action, ready counts, the final status. */
  data: Record<string, unknown>;
}

/** Who started a run, as a record keeps it (never a token). */
export interface RunCaller {
  /** The identity id (`kind:issuer:subject`); absent on runs stored before ids were. */
  id?: string;
  username: string;
  kind: Caller['kind'];
}

export interface RunError {
  code: string;
  message: string;
}

/** A run in a list: what `GET /api/v1/runs` shows of each. */
export interface RunSummary {
  runId: string;
  tool: string;
  caller: RunCaller;
  /** The cluster the run works in (SVC_CLUSTERS); absent when svc serves one cluster. */
  cluster?: string;
  status: RunStatus;
  /** ISO 8601 */
  createdAt: string;
  startedAt?: string;
  finishedAt?: string;
  error?: RunError;
}

/** A run as stored: what callers see, and the replica's bookkeeping they never see. */
export interface RunRecord extends RunSummary {
  /** The `data` the synchronous call would have answered ({result, tool, executionTime}). */
  result?: unknown;
  /** Set once a cancel was asked for; the replica running it stops the run. */
  cancelRequested?: boolean;
  /** The replica that runs it and until when its lease holds (milliseconds since the epoch). */
  owner?: string;
  leaseUntil?: number;
}

/** The stored record with its events, as `GET /api/v1/runs/{id}` shows it. */
export interface RunView extends RunSummary {
  /** Once succeeded: the `data` the synchronous call would have answered. */
  result?: unknown;
  progress: RunEvent[];
}

/** Tools whose run can be long: the ones that honour `Prefer: respond-async` (their definitions' `longRunning`). */
export const ASYNC_TOOLS: ReadonlySet<string> = LONG_RUNNING_TOOLS;

/**
 * Whether a call honours `Prefer: respond-async`: the long tools always, and
 * manageOrgData's capability scan, whose run is the scan (the other
 * manageOrgData operations answer at once). Judged on the raw input, before
 * validation, which refuses a bad one the same way either way.
 */
export function honoursAsync(tool: string, params: unknown): boolean {
  if (ASYNC_TOOLS.has(tool)) return true;
  return tool === 'manageOrgData' && typeof params === 'object' && params !== null && (params as Record<string, unknown>).operation === 'scan';
}

/** Events a run keeps; later ones (but `done`) are dropped, so a record stays bounded over a long run. */
export const MAX_RUN_EVENTS = 500;

/** What interrupts a run whose replica stopped renewing its lease. */
export const INTERRUPTED_MESSAGE = 'interrupted: the replica running it stopped';

const RUN_ID = /^run_[0-9a-f]{32}$/;

/** `run_<32 lowercase hex>`: 128 random bits from a CSPRNG the adapter passes in. */
export function newRunId(randomHex32: string): string {
  if (!/^[0-9a-f]{32}$/.test(randomHex32)) throw new Error('run id randomness must be 32 lowercase hex digits');
  return `run_${randomHex32}`;
}

/** Only a well-formed id is ever looked up or used in a key or a path. */
export const isRunId = (id: unknown): id is string => typeof id === 'string' && RUN_ID.test(id);

/** What runs are owned and counted by: the identity id (a run stored before ids has the id its kind and name give, `storedIdentityId`). */
export const callerKey = (c: RunCaller): string => storedIdentityId(c);

/** Words for what a run had done when it stopped, from its events. */
export function doneSoFar(events: readonly RunEvent[]): string {
  const count = (type: RunEventType) => events.filter((e) => e.type === type).length;
  const applied = events.filter((e) => e.type === 'applied' && e.data.status === 'applied').length;
  const parts = [
    `${count('model-call')} model call(s)`,
    `${count('function-call')} function call(s)`,
    `${count('dry-run')} dry run(s)`,
    `${applied} change(s) applied`,
  ];
  return parts.join(', ');
}
