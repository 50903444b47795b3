import { ValidationError } from '../../domain/errors.js';
import { OUTCOME_STATUSES, type ChangeFilter, type ChangePageRequest, type OutcomeStatus } from '../../domain/ledger/change-entry.js';

/** `GET /api/v1/changes` query parameters as they arrive (strings), and the CLI's flags. */
export interface ChangeQueryInput {
  since?: string;
  until?: string;
  caller?: string;
  namespace?: string;
  kind?: string;
  name?: string;
  tool?: string;
  sessionId?: string;
  outcome?: string;
  limit?: number;
  cursor?: string;
}

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 500;
const MAX_TEXT = 253;

function time(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}(T[0-9:.]+(Z|[+-]\d{2}:\d{2})?)?$/.test(value) || Number.isNaN(ms)) {
    throw new ValidationError(`Invalid ${name}: expected an ISO 8601 date or time such as 2026-11-25T10:00:00Z, got ${JSON.stringify(value.slice(0, 40))}`);
  }
  return ms;
}

function text(value: string | undefined, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (value.length === 0 || value.length > MAX_TEXT) throw new ValidationError(`Invalid ${name}: 1 to ${MAX_TEXT} characters`);
  return value;
}

/** The opaque cursor: the position after which the next page starts. */
export function encodeCursor(beforeSeq: number): string {
  return Buffer.from(JSON.stringify({ b: beforeSeq })).toString('base64url');
}

function decodeCursor(cursor: string): number {
  try {
    const b = (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { b?: unknown }).b;
    if (typeof b === 'number' && Number.isSafeInteger(b) && b > 0) return b;
  } catch {
    // falls through to the refusal
  }
  throw new ValidationError('Invalid cursor: pass back the nextCursor of an earlier answer unchanged');
}

/** Validated filters and page, before any read. */
export function parseChangeQuery(q: ChangeQueryInput): { filter: ChangeFilter; page: ChangePageRequest } {
  const limit = q.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new ValidationError(`Invalid limit: an integer from 1 to ${MAX_LIMIT}`);
  if (q.outcome !== undefined && !OUTCOME_STATUSES.includes(q.outcome as OutcomeStatus)) {
    throw new ValidationError(`Invalid outcome: one of ${OUTCOME_STATUSES.join(', ')}`);
  }
  const filter: ChangeFilter = {
    since: time(q.since, 'since'),
    until: time(q.until, 'until'),
    caller: text(q.caller, 'caller'),
    namespace: text(q.namespace, 'namespace'),
    kind: text(q.kind, 'kind'),
    name: text(q.name, 'name'),
    tool: text(q.tool, 'tool'),
    sessionId: text(q.sessionId, 'sessionId'),
    outcome: q.outcome as OutcomeStatus | undefined,
  };
  if (filter.since !== undefined && filter.until !== undefined && filter.since > filter.until) throw new ValidationError('Invalid range: since is after until');
  return { filter, page: { limit, ...(q.cursor !== undefined ? { beforeSeq: decodeCursor(q.cursor) } : {}) } };
}
