import type { Caller, Role } from '../auth/caller.js';
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
  /** `hmac-sha256` when the entry was sealed with SVC_LEDGER_KEY: `hash` is then an HMAC (absent: plain SHA-256). */
  mac?: 'hmac-sha256';
  /** SHA-256 (hex) of this entry's canonical JSON without `hash` (so `prevHash` and `mac` are covered), or its HMAC-SHA256 under the key. */
  hash: string;
}

/** Who asked for the change: never a token. */
export interface LedgerCaller {
  /** The identity id (`kind:issuer:subject`): who may revert it without the admin role. Absent on entries recorded before ids were. */
  id?: string;
  username: string;
  roles: Role[];
  /** The people file's person of that identity (SVC_PEOPLE_FILE), when it names one: their other credentials revert it too. */
  person?: string;
}

/** The caller as an entry records them. */
export function ledgerCallerOf(caller: Caller): LedgerCaller {
  return { id: caller.id, username: caller.username, roles: [...caller.roles], ...(caller.person !== undefined ? { person: caller.person } : {}) };
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

/** The exact call sent to the API server (`push`: a commit pushed to git instead, see `git`). */
export interface SentChange {
  /** `none` on a `verdict` entry: nothing was sent, svc judged an earlier change. */
  method: 'apply' | 'patch' | 'delete' | 'create' | 'push' | 'none';
  /** `apply` (server-side apply), `merge` (RFC 7386), `strategic`, `json` (RFC 6902); absent for delete and create. */
  patchType?: 'apply' | 'merge' | 'strategic' | 'json';
  /** The manifest or patch sent, with the resourceVersion precondition it carried; for a delete, its DeleteOptions (the precondition), absent when it had none. */
  body?: unknown;
}

export type ChangeOutcome =
  | { status: 'applied' }
  /** An `intent` entry's: the write is about to be sent; its outcome is a later entry naming it in `intentId`. */
  | { status: 'pending' }
  /** Recovery could not tell whether a write whose answer never came took effect (see `recovery`). */
  | { status: 'unknown'; message: string }
  /** The API server refused the change (a 4xx with its reason and message). */
  | { status: 'refused'; reason?: string; message: string }
  /** Anything else: the call failed in transport, or svc stopped before sending it. */
  | { status: 'failed'; message: string }
  /** A `verdict` entry's: nothing was written, svc judged the change its `verdictOf` names (see `verdict`). */
  | { status: 'judged' };
export type OutcomeStatus = ChangeOutcome['status'];
export const OUTCOME_STATUSES: readonly OutcomeStatus[] = ['applied', 'refused', 'failed', 'unknown', 'pending', 'judged'];

/** The change that undoes this one, as `revert` will send it (after a dry run). */
export type InverseChange =
  /** Restore the recorded fields with a merge patch. */
  | { method: 'patch'; patchType: 'merge'; body: Record<string, unknown> }
  /** The change created the object: delete it. */
  | { method: 'delete' }
  /** The change deleted the object: create it again from the recorded state. */
  | { method: 'create'; body: Record<string, unknown> };

/** The target of a git delivery's entry: the branch pushed (the repository is in `git.repository`). */
export const GIT_TARGET = { apiVersion: 'git', kind: 'GitBranch' } as const;
/** At most this many paths are listed in `git.files` (the count is always whole). */
export const GIT_FILES_LISTED = 200;

/**
 * A change delivered as a commit to a git repository instead of a write to a
 * cluster (deployManifests with `gitops`, remediate or operate with delivery
 * `git`): the GitOps controller applies it once merged. Never a credential.
 */
export interface GitChange {
  /** The repository's URL, credentials removed. */
  repository: string;
  branch: string;
  /** The branch it was (or would be) created from; absent when the delivery stopped before reading the remote. */
  baseBranch?: string;
  /** The commit at the tip of `branch` after the delivery; absent when nothing reached the remote. */
  commit?: string;
  /** A new commit was pushed (false: the branch already held these files, nothing was pushed). */
  pushed?: boolean;
  /** This delivery created `branch` on the remote. */
  branchCreated?: boolean;
  /** Paths written, relative to the repository root (the first GIT_FILES_LISTED). */
  files: string[];
  fileCount: number;
  /** The Kubernetes objects whose desired state the commit changes. */
  objects: ChangeTarget[];
  /** The pull (merge) request opened, or the open one found. */
  pullRequest?: { url: string; number: number; existing: boolean };
  /** The commit reached the remote but the pull request could not be opened: the host's answer. */
  pullRequestError?: string;
}

/** What recovery saw when it read the object of an intent whose outcome was never recorded. */
export type RecoveryFinding =
  /** The live object differs from the state before exactly as the dry run said the write would change it. */
  | 'matches'
  /** The object is as it was before (same resourceVersion): the write did not take effect. */
  | 'unchanged'
  /** A delete: the object is gone (or being deleted). */
  | 'gone'
  /** The object does not exist. */
  | 'absent'
  /** The object exists and is neither as before nor as intended (or the intended state is not known). */
  | 'differs'
  /** The object could not be read. */
  | 'unreadable';

/**
 * What the recorder knows; the ledger adds id, seq, at and the hashes.
 *
 * Every cluster write leaves two entries: an `intent` (outcome `pending`,
 * inverse null) appended and made durable before the write is sent, and
 * after it the outcome entry (`change` or `revert`) naming the intent in
 * `intentId`. An intent without an outcome entry is open: svc stopped (or
 * the ledger failed) between the two; recovery reads the object and appends
 * the outcome it observes (with `recovery`).
 */
export interface ChangeRecord {
  /**
   * `change` for a tool's write, `revert` for an undo made through the ledger, `intent` for a write about to be sent,
   * `verdict` for svc's verdict on a change reached after the tool answered (the settle window's end).
   */
  type: EntryType;
  caller: LedgerCaller;
  /** The tool that made the change (`remediate`, `operate`, `deployManifests`), or `revert`. */
  tool: string;
  sessionId?: string;
  /** The issue or intent that led to it, at most 2,000 characters. */
  request?: string;
  /** The model's stated rationale, when a model proposed the change. */
  rationale?: string;
  /** svc's risk of the write as the write guard assessed it (remediate, operate, deployManifests, revert): never the model's label alone. */
  risk?: RiskLevel;
  approval: ChangeApproval;
  /** The object changed; for a git delivery the branch pushed, `{apiVersion: "git", kind: "GitBranch", name: <branch>}`. */
  target: ChangeTarget;
  /** null when the object did not exist before (and for a git delivery: the repository keeps its history). */
  before: ObjectState | null;
  /** The object after the change, as the server stored it (null when deleted; absent when not applied): what `revert` compares the live object with. */
  after?: ObjectState | null;
  /** The server-side dry run the caller saw: its verdict and the field-level diff. Absent for a git delivery that was not dry-run (deployManifests with `gitops`). */
  dryRun?: { accepted: boolean; message?: string; diff: FieldChange[] };
  change: SentChange;
  outcome: ChangeOutcome;
  /** The object's resourceVersion after the change (absent when it was not applied, or deleted). */
  resourceVersionAfter?: string;
  /** How to undo it; null when nothing can (a refused change, no field to restore, or a git delivery: that is undone in git). */
  inverse: InverseChange | null;
  /** For a `revert` entry (and the intent of one): the id of the entry it undoes. */
  revertOf?: string;
  /** On the outcome entry of a cluster write: the id of its `intent` entry. */
  intentId?: string;
  /** On an `intent`: the run (`Prefer: respond-async`) and the HTTP request the write belongs to. */
  runId?: string;
  requestId?: string;
  /** On an `intent`: the object could not be read before the write (`before` null is then not "absent"). */
  beforeUnread?: true;
  /** On an outcome recorded by recovery (svc stopped before the API server's answer): what it found and why it concluded the outcome. */
  recovery?: { finding: RecoveryFinding; message: string };
  /** For a git delivery (`change.method` `push`, target GIT_TARGET): where it went. Its outcome `applied` means the commit is on the remote. */
  git?: GitChange;
  /** The cluster written (a name of SVC_CLUSTERS): sealed with the entry; absent on entries of an svc serving its one cluster, and on entries recorded before fleets. */
  cluster?: string;
  /** On a `verdict` entry: the id of the change entry it judges. */
  verdictOf?: string;
  /** On a `verdict` entry: what svc concluded, and what it did about it. */
  verdict?: ChangeVerdict;
}

export type EntryType = 'change' | 'revert' | 'intent' | 'verdict';
export const ENTRY_TYPES: readonly EntryType[] = ['change', 'revert', 'intent', 'verdict'];

/** svc's health verdict (workload-health.ts's Health). */
export type VerdictHealth = 'healthy' | 'degraded' | 'unknown';

/**
 * A `verdict` entry's finding: svc's own verdict on the object a change
 * wrote, reached when the settle window ended after the tool had answered
 * with the verdict so far (docs/verify.md). Cluster text, scrubbed and
 * bounded (VERDICT_EVIDENCE_LINES lines of at most VERDICT_EVIDENCE_CHARS).
 */
export interface ChangeVerdict {
  /** The verdict on this change's object (`unknown` when it could not be judged: deleted, a kind with no health). */
  health: VerdictHealth;
  /** The verdict on the whole execution (every object it changed): `degraded` when any is. */
  execution: VerdictHealth;
  /** The findings on this object (for the execution's, the follow-up run's result). */
  evidence: string[];
  /** What svc does with a degraded execution. */
  onFailure: 'revert' | 'report';
  /** Degraded and reverted: the `revert` entry that undid the change. */
  revertId?: string;
  /** Degraded and not reverted: why (onFailure `report`, or the revert was refused). */
  notReverted?: string;
  /** Every changed object was healthy for SVC_VERIFY_STABLE_MS: the window ended early. */
  stable?: true;
  /** ISO 8601: when the verdict was reached. */
  decidedAt: string;
  windowMs: number;
  observedMs: number;
  /** The follow-up run that watched the rest of the window, when there was one. */
  runId?: string;
}

export const VERDICT_EVIDENCE_LINES = 20;
export const VERDICT_EVIDENCE_CHARS = 500;

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
  /** The outcome entry of this intent id. */
  intentId?: string;
  /** Entries of this cluster (SVC_CLUSTERS). */
  cluster?: string;
  /** Entries of this type (`?type=`); an intent is listed only while open. */
  type?: EntryType;
  /** Verdict entries on this entry id. */
  verdictOf?: string;
}

export interface ChangePageRequest {
  /** 1..500. */
  limit: number;
  /** Only entries with a lower `seq` (the page after one ending at `beforeSeq + ...`). */
  beforeSeq?: number;
}

export interface ChangePage {
  /** Newest first; an intent with an outcome entry is not listed (the outcome entry names it), an open one is. */
  entries: ChangeEntry[];
  /** More match: the `seq` of the last entry returned, for the next page. */
  nextBeforeSeq?: number;
}

export const REQUEST_MAX_CHARS = 2000;
/** Largest entry as canonical JSON: the before state of the largest object the API server stores (1.5 MiB) and room around it. */
export const MAX_ENTRY_BYTES = 4 * 1024 * 1024;
export const GENESIS_HASH = '0'.repeat(64);
