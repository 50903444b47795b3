import { hasRole, type Caller } from '../../domain/auth/caller.js';
import { ValidationError } from '../../domain/errors.js';
import { CLUSTER_NAME } from '../../domain/fleet/cluster-profile.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { RunStore } from '../../domain/ports/run-store.js';
import { readCursor } from '../../domain/runs/run-cursor.js';
import { callerKey, RUN_STATUSES, type RunRecord, type RunStatus, type RunSummary } from '../../domain/runs/run.js';
import { settleInterrupted } from './finish-run.js';
import { runCallerOf } from './run-access.js';
import { runView } from './get-run.js';

export interface ListRunsInput {
  caller: Caller;
  tool?: string;
  /** Only runs in this cluster. */
  cluster?: string;
  status?: string;
  limit?: number;
  cursor?: string;
}

export const MAX_PAGE = 100;
export const DEFAULT_PAGE = 20;

/** The caller's runs (an admin's: everyone's), newest first, a page at a time. Filters are checked before any read. */
export class ListRuns {
  constructor(
    private readonly store: RunStore,
    private readonly clock: Clock,
  ) {}

  async execute(input: ListRunsInput): Promise<{ runs: RunSummary[]; nextCursor?: string }> {
    const limit = input.limit ?? DEFAULT_PAGE;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw new ValidationError(`limit must be an integer from 1 to ${MAX_PAGE}`);
    if (input.status !== undefined && !RUN_STATUSES.includes(input.status as RunStatus)) {
      throw new ValidationError(`status must be one of ${RUN_STATUSES.join(', ')}`);
    }
    if (input.cursor !== undefined && !readCursor(input.cursor))
      throw new ValidationError('cursor is not one svc gave: pass nextCursor from the previous page');
    if (input.tool !== undefined && !/^[A-Za-z][A-Za-z0-9_-]{0,63}$/.test(input.tool)) throw new ValidationError('tool must be a tool name');
    if (input.cluster !== undefined && !CLUSTER_NAME.test(input.cluster))
      throw new ValidationError('cluster must be a cluster name (a kubeconfig context name)');
    const page = await this.store.list({
      ...(hasRole(input.caller, 'admin') ? {} : { callerKey: callerKey(runCallerOf(input.caller)) }),
      ...(input.tool ? { tool: input.tool } : {}),
      ...(input.cluster ? { cluster: input.cluster } : {}),
      ...(input.status ? { status: input.status as RunStatus } : {}),
      limit,
      ...(input.cursor ? { cursor: input.cursor } : {}),
    });
    const runs = await Promise.all(page.runs.map((r) => settleInterrupted(this.store, this.clock, r)));
    return { runs: runs.map(summary), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  }
}

function summary(record: RunRecord): RunSummary {
  const { progress: _p, result: _r, ...rest } = runView(record, []);
  return rest;
}
