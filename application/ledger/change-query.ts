import { ValidationError } from '../../domain/errors.js';
import {
  ENTRY_TYPES,
  OUTCOME_STATUSES,
  type ChangeFilter,
  type ChangePageRequest,
  type EntryType,
  type OutcomeStatus,
} from '../../domain/ledger/change-entry.js';

/**
 * The query of `GET /api/v1/changes`, one entry a parameter: its name, the
 * CLI flag that carries it, and what it holds. The REST controller, the CLI
 * (`svc changes list`) and `parseChangeQuery` all read this one list.
 */
export const CHANGE_QUERY = [
  { name: 'since', flag: 'since', arg: 'time', help: 'ISO 8601 date or time; entries taken at or after it' },
  { name: 'until', flag: 'until', arg: 'time', help: 'ISO 8601 date or time; entries taken at or before it' },
  { name: 'caller', flag: 'caller', arg: 'username', help: 'username of who asked for the change' },
  { name: 'namespace', flag: 'namespace', arg: 'ns', help: 'namespace of the changed object' },
  { name: 'kind', flag: 'kind', arg: 'kind', help: 'kind of the changed object, e.g. Deployment' },
  { name: 'name', flag: 'name', arg: 'name', help: 'name of the changed object' },
  { name: 'tool', flag: 'tool', arg: 'tool', help: 'tool that made the change: remediate, operate, deployManifests or revert' },
  { name: 'sessionId', flag: 'session', arg: 'id', help: 'session id of the tool run' },
  { name: 'cluster', flag: 'cluster', arg: 'name', help: 'cluster the change was made in (SVC_CLUSTERS)' },
  {
    name: 'outcome',
    flag: 'outcome',
    arg: 'outcome',
    help: 'applied, refused (the API server refused it), failed, unknown, pending (open intents), or judged (verdict entries)',
  },
  {
    name: 'type',
    flag: 'type',
    arg: 'type',
    help: "change, revert, intent (open ones only) or verdict (svc's later verdict on a change)",
  },
  { name: 'limit', flag: 'limit', arg: 'n', help: 'entries per page, 1 to 500 (default 50)' },
  { name: 'cursor', flag: 'cursor', arg: 'cursor', help: 'the nextCursor of the page before, unchanged' },
] as const;

type QueryName = (typeof CHANGE_QUERY)[number]['name'];

/** `GET /api/v1/changes` query parameters as they arrive (`limit` a number from REST, text from the CLI's flags). */
export type ChangeQueryInput = { [K in Exclude<QueryName, 'limit'>]?: string } & { limit?: number | string };

/** The query from the CLI's flags (commander keys them by flag), as text, unchecked. */
export function changeQueryFromFlags(flags: Partial<Record<string, string>>): Partial<Record<QueryName, string>> {
  const query: Partial<Record<QueryName, string>> = {};
  for (const q of CHANGE_QUERY) if (flags[q.flag] !== undefined) query[q.name] = flags[q.flag];
  return query;
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
  const limit = typeof q.limit === 'string' ? (/^\d{1,6}$/.test(q.limit) ? Number(q.limit) : Number.NaN) : (q.limit ?? DEFAULT_LIMIT);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new ValidationError(`Invalid limit: an integer from 1 to ${MAX_LIMIT}`);
  if (q.outcome !== undefined && !OUTCOME_STATUSES.includes(q.outcome as OutcomeStatus)) {
    throw new ValidationError(`Invalid outcome: one of ${OUTCOME_STATUSES.join(', ')}`);
  }
  if (q.type !== undefined && !ENTRY_TYPES.includes(q.type as EntryType)) throw new ValidationError(`Invalid type: one of ${ENTRY_TYPES.join(', ')}`);
  const filter: ChangeFilter = {
    since: time(q.since, 'since'),
    until: time(q.until, 'until'),
    caller: text(q.caller, 'caller'),
    namespace: text(q.namespace, 'namespace'),
    kind: text(q.kind, 'kind'),
    name: text(q.name, 'name'),
    tool: text(q.tool, 'tool'),
    sessionId: text(q.sessionId, 'sessionId'),
    ...(q.cluster !== undefined ? { cluster: text(q.cluster, 'cluster') } : {}),
    outcome: q.outcome as OutcomeStatus | undefined,
    type: q.type as EntryType | undefined,
  };
  if (filter.since !== undefined && filter.until !== undefined && filter.since > filter.until) throw new ValidationError('Invalid range: since is after until');
  return { filter, page: { limit, ...(q.cursor !== undefined ? { beforeSeq: decodeCursor(q.cursor) } : {}) } };
}
