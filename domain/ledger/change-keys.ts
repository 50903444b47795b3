import { MAX_ENTRY_BYTES, type ChangeEntry, type ChangeFilter, type EntryType, type OutcomeStatus } from './change-entry.js';
import { ValidationError } from '../errors.js';

/** What `list` filters on, kept by an index instead of the whole entry. */
export interface ChangeKeys {
  seq: number;
  id: string;
  atMs: number;
  caller: string;
  namespace?: string;
  kind: string;
  name: string;
  tool: string;
  sessionId?: string;
  outcome: OutcomeStatus;
  revertOf?: string;
  /** An `intent` entry (listed only while open). */
  intent?: true;
  /** The intent an outcome entry closes. */
  intentId?: string;
  cluster?: string;
  type: EntryType;
  /** The change a verdict entry judges. */
  verdictOf?: string;
}

export function keysOf(e: ChangeEntry): ChangeKeys {
  return {
    seq: e.seq,
    id: e.id,
    atMs: Date.parse(e.at),
    caller: e.caller.username,
    namespace: e.target.namespace,
    kind: e.target.kind,
    name: e.target.name,
    tool: e.tool,
    sessionId: e.sessionId,
    outcome: e.outcome.status,
    revertOf: e.revertOf,
    ...(e.type === 'intent' ? { intent: true as const } : {}),
    ...(e.intentId ? { intentId: e.intentId } : {}),
    ...(e.cluster !== undefined ? { cluster: e.cluster } : {}),
    type: e.type,
    ...(e.verdictOf ? { verdictOf: e.verdictOf } : {}),
  };
}

/** Whether an entry's keys match every filter given. */
export function matchesFilter(k: ChangeKeys, f: ChangeFilter): boolean {
  return (
    (f.since === undefined || k.atMs >= f.since) &&
    (f.until === undefined || k.atMs <= f.until) &&
    (f.caller === undefined || k.caller === f.caller) &&
    (f.namespace === undefined || k.namespace === f.namespace) &&
    (f.kind === undefined || k.kind === f.kind) &&
    (f.name === undefined || k.name === f.name) &&
    (f.tool === undefined || k.tool === f.tool) &&
    (f.sessionId === undefined || k.sessionId === f.sessionId) &&
    (f.outcome === undefined || k.outcome === f.outcome) &&
    (f.revertOf === undefined || k.revertOf === f.revertOf) &&
    (f.intentId === undefined || k.intentId === f.intentId) &&
    (f.cluster === undefined || k.cluster === f.cluster) &&
    (f.type === undefined || k.type === f.type) &&
    (f.verdictOf === undefined || k.verdictOf === f.verdictOf)
  );
}

const ID = /^chg_([1-9][0-9]{0,15})_[0-9a-f]{8}$/;

/** The seq inside a well-formed id, or undefined. */
export function seqOfId(id: string): number | undefined {
  const m = ID.exec(id);
  return m ? Number(m[1]) : undefined;
}

export function newEntryId(seq: number, random8Hex: string): string {
  return `chg_${seq}_${random8Hex}`;
}

/** The entry's stored text, refused before any write when over the limit. */
export function checkedEntryText(text: string): string {
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_ENTRY_BYTES) throw new ValidationError(`A ledger entry may be at most ${MAX_ENTRY_BYTES} bytes; this one is ${bytes}`);
  return text;
}
