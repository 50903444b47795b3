import type { Role } from '../auth/caller.js';
import type { RiskLevel } from '../actions/cluster-action.js';
import type { FieldChange } from '../operations/object-diff.js';

/**
 * One change svc made to a cluster (or tried to): a ledger entry. Written
 * once, before the tool answers, and never rewritten. Secret data and the
 * last-applied annotation read `***` in every field (see redactForLedger).
 */
export interface ChangeEntry extends ChangeRecord {
  /** `chg_<seq>_<8 hex>`: the position in the chain and a random suffix, so ids of two ledgers never collide. */
  id: string;
  /** 1 for the first entry ever appended, +1 for each next one (pruning keeps the numbers). */
  seq: number;
  /** ISO 8601, when the ledger took the entry. */
  at: string;
  /** SHA-256 (hex) of the entry before it in the chain; 64 zeros for the first. */
  prevHash: string;
  /** SHA-256 (hex) of this entry's canonical JSON without `hash` (so `prevHash` is covered). */
  hash: string;
}

/** Who asked for the change: never a token. */
export interface LedgerCaller {
  username: string;
  roles: Role[];
}

/** How the change was allowed. */
export type ChangeApproval = { mode: 'manual'; by: string } | { mode: 'automatic'; rule: string };

export interface ChangeTarget {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

/** The object as it was before the change: what an undo needs, and nothing the server writes. */
export interface ObjectState {
  spec?: unknown;
  /** Fields other than spec, metadata and status (a ConfigMap's `data`, a Secret's `type` and `data`, a Role's `rules`). */
  other?: Record<string, unknown>;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  resourceVersion?: string;
}

/** The exact call sent to the API server. */
export interface SentChange {
  method: 'apply' | 'patch' | 'delete' | 'create';
  /** `apply` (server-side apply), `merge` (RFC 7386), `strategic`, `json` (RFC 6902); absent for delete and create. */
  patchType?: 'apply' | 'merge' | 'strategic' | 'json';
  /** The manifest or patch sent, with the resourceVersion precondition it carried; for a delete, its DeleteOptions (the precondition), absent when it had none. */
  body?: unknown;
}

export type ChangeOutcome =
  | { status: 'applied' }
  /** The API server refused the change (a 4xx with its reason and message). */
  | { status: 'refused'; reason?: string; message: string }
  /** Anything else: the call failed in transport, or svc stopped before sending it. */
  | { status: 'failed'; message: string };
export type OutcomeStatus = ChangeOutcome['status'];
export const OUTCOME_STATUSES: readonly OutcomeStatus[] = ['applied', 'refused', 'failed'];

/** The change that undoes this one, as `revert` will send it (after a dry run). */
export type InverseChange =
  /** Restore the recorded fields with a merge patch. */
  | { method: 'patch'; patchType: 'merge'; body: Record<string, unknown> }
  /** The change created the object: delete it. */
  | { method: 'delete' }
  /** The change deleted the object: create it again from the recorded state. */
  | { method: 'create'; body: Record<string, unknown> };

/** What the recorder knows; the ledger adds id, seq, at and the hashes. */
export interface ChangeRecord {
  /** `change` for a tool's write, `revert` for an undo made through the ledger. */
  type: 'change' | 'revert';
  caller: LedgerCaller;
  /** The tool that made the change (`remediate`, `operate`, `deployManifests`), or `revert`. */
  tool: string;
  sessionId?: string;
  /** The issue or intent that led to it, at most 2,000 characters. */
  request?: string;
  /** The model's stated rationale and risk, when a model proposed the change. */
  rationale?: string;
  risk?: RiskLevel;
  approval: ChangeApproval;
  target: ChangeTarget;
  /** null when the object did not exist before. */
  before: ObjectState | null;
  /** The object after the change, as the server stored it (null when deleted; absent when not applied): what `revert` compares the live object with. */
  after?: ObjectState | null;
  /** The server-side dry run the caller saw: its verdict and the field-level diff. */
  dryRun: { accepted: boolean; message?: string; diff: FieldChange[] };
  change: SentChange;
  outcome: ChangeOutcome;
  /** The object's resourceVersion after the change (absent when it was not applied, or deleted). */
  resourceVersionAfter?: string;
  /** How to undo it; null when nothing can (a refused change, or no field to restore). */
  inverse: InverseChange | null;
  /** For a `revert` entry: the id of the entry it undoes. */
  revertOf?: string;
}

/** Filters of `GET /api/v1/changes`; every given one must match. */
export interface ChangeFilter {
  /** Epoch milliseconds, inclusive. */
  since?: number;
  /** Epoch milliseconds, inclusive. */
  until?: number;
  caller?: string;
  namespace?: string;
  kind?: string;
  name?: string;
  tool?: string;
  sessionId?: string;
  outcome?: OutcomeStatus;
  /** Revert entries that undo this entry id. */
  revertOf?: string;
}

export interface ChangePageRequest {
  /** 1..500. */
  limit: number;
  /** Only entries with a lower `seq` (the page after one ending at `beforeSeq + ...`). */
  beforeSeq?: number;
}

export interface ChangePage {
  /** Newest first. */
  entries: ChangeEntry[];
  /** More match: the `seq` of the last entry returned, for the next page. */
  nextBeforeSeq?: number;
}

export const REQUEST_MAX_CHARS = 2000;
/** Largest entry as canonical JSON: the before state of the largest object the API server stores (1.5 MiB) and room around it. */
export const MAX_ENTRY_BYTES = 4 * 1024 * 1024;
export const GENESIS_HASH = '0'.repeat(64);
