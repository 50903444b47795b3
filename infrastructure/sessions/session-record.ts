import { ExecutionError } from '../../domain/errors.js';
import type { Session, SessionKind } from '../../domain/sessions/session.js';
import { CorruptSessionFileError } from './session-files.js';

/**
 * The JSON form of one session file. Keys are written in a fixed order with
 * `state` last, so the sweep can read a session's expiry from the file's
 * first few hundred bytes without reading a large state.
 */

/** The state as JSON text; a state too large or not serialisable is the calling tool's bug. */
export function serializeState(state: unknown, maxBytes: number): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(state);
  } catch (e) {
    throw new ExecutionError(`Session state is not JSON-serialisable: ${(e as Error).message}`);
  }
  json ??= 'null';
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > maxBytes) throw new ExecutionError(`Session state is too large: ${bytes} bytes serialised, the limit is ${maxBytes}`);
  return json;
}

export function encodeSession(session: Omit<Session<unknown>, 'state'>, stateJson: string): string {
  const { id, kind, createdAt, updatedAt, expiresAt, revision } = session;
  const head = JSON.stringify({ id, kind, createdAt, updatedAt, expiresAt, revision });
  return `${head.slice(0, -1)},"state":${stateJson}}`;
}

const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The session in `text`, which must be the record of `id` of `kind`; else CorruptSessionFileError. */
export function decodeSession<S>(text: string, kind: SessionKind, id: string): Session<S> {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new CorruptSessionFileError('not JSON (truncated or modified)');
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) throw new CorruptSessionFileError('not a JSON object');
  if (record.id !== id || record.kind !== kind) throw new CorruptSessionFileError('id or kind does not match the file name');
  const { createdAt, updatedAt, expiresAt, revision } = record;
  if (!isTime(createdAt) || !isTime(updatedAt) || !isTime(expiresAt)) throw new CorruptSessionFileError('bad timestamps');
  if (!Number.isInteger(revision) || (revision as number) < 1) throw new CorruptSessionFileError('bad revision');
  if (!('state' in record)) throw new CorruptSessionFileError('no state');
  return { id, kind, createdAt, updatedAt, expiresAt, revision: revision as number, state: record.state as S };
}

/** Bytes of a record before its state: id, kind, three timestamps and a revision fit well within. */
export const HEAD_BYTES = 512;
const HEAD = /^\{"id":"[a-z]{3}_[0-9a-f]{32}","kind":"[a-z]+","createdAt":([^,]+),"updatedAt":[^,]+,"expiresAt":([^,]+),"revision":\d+,"state":/;

/** A number read from the start of a record (group 1 `createdAt`, 2 `expiresAt`); undefined when the head is not in the written form. */
function fromHead(head: string, group: 1 | 2): number | undefined {
  const match = HEAD.exec(head);
  const n = match ? Number(match[group]) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

/** `expiresAt` read from the start of a record. */
export const expiryFromHead = (head: string): number | undefined => fromHead(head, 2);

/** `createdAt` read from the start of a record (the listing's index is built from these). */
export const creationFromHead = (head: string): number | undefined => fromHead(head, 1);
