import type { ClusterOperation, RiskLevel } from '../../domain/actions/cluster-action.js';
import type { DomainError } from '../../domain/errors.js';
import type { DryRunResult, JsonPatchOp, KubeObject, PatchBody, PatchType, ResourceRef } from '../../domain/cluster/kube-types.js';
import type { FieldChange } from '../../domain/operations/object-diff.js';
import type { ResolvedTarget } from '../../domain/write-guard/resolved-target.js';

/** Why a guarded write may not go ahead, whichever step refused it. */
export interface WriteRefusal {
  /**
   * svc's code (InvalidTarget, OutsideWriteScope, UnsafePatch, ImageRegistry,
   * PolicyViolation, PoliciesUnreadable, NoChange, AlreadyExists, Unavailable,
   * Rejected, Invalid, Forbidden, or a caller's own such as OutsideSolution)
   * or the API server's reason for refusing the dry run (Conflict, ...).
   */
  reason: string;
  /** For a person; Secret values svc knows of read `***`. */
  message: string;
  causes: { field?: string; message: string }[];
  /** The caller was refused (their cluster RBAC): executing is 403, not 400. */
  byCaller?: true;
  /**
   * The exception a step threw when a dependency or the API server failed
   * rather than answered: a caller that answers failures as failures (revert,
   * deployManifests, execution) rethrows it instead of showing the refusal.
   */
  error?: DomainError;
}

/** The write as it will be sent, made from the live object by the caller (WriteRequest.prepare). */
export interface PreparedWrite {
  /** Exactly what the write port will be sent: pinned, a create for an absent object, a custom resource's computed JSON Patch. */
  operation: ClusterOperation;
  /** When svc computed the sent patch from the caller's own (a custom resource's object patch): the caller's, for what it names for removal. */
  asked?: { patchType: PatchType; patch: PatchBody };
  /** The RFC 6902 operations svc computed for a custom resource: shown, dry-run, recorded and sent, never recomputed. */
  jsonPatch?: JsonPatchOp[];
  /** Set when the write cannot go ahead against this live object (NoChange, AlreadyExists): nothing is dry-run. */
  refusal?: WriteRefusal;
}

/** One write to run through the guarded-write pipeline (GuardedWrite.check). */
export interface WriteRequest {
  /** The object as the caller names it; resolved from discovery, never trusted as written. */
  ref: ResourceRef;
  /** The write before anything is read: what the allow-lists and the unsafe-patch check judge before any request. */
  operation: ClusterOperation;
  /** The model's own risk label: it can raise the risk, never lower it. */
  label?: RiskLevel;
  /** A rule of the caller's own on the resolved target, checked before any other request (deployManifests: the solution's kinds). */
  admit?: (target: ResolvedTarget) => WriteRefusal | undefined;
  /**
   * The write to send against the live object (null: absent). Absent: the
   * operation as given. An error it throws (revert: the object changed since
   * the change) propagates.
   */
  prepare?: (live: KubeObject | null) => PreparedWrite;
}

/** What the pipeline found for one write: everything preview, deploy, revert and the execute-time re-check answer, record or digest. */
export interface GuardedWriteResult {
  /** As the caller named it. */
  ref: ResourceRef;
  /** From discovery; absent when it could not be resolved. */
  target?: ResolvedTarget;
  /** The one risk every gate reads: the write guard's, or, for a write refused before its content was known, its target's and verb's alone. */
  risk: RiskLevel;
  riskReasons: string[];
  /** Why the target itself is never written automatically (the guard's targetFindings); set once the write was judged. */
  sensitive?: string[];
  /** The live object as read (null: absent); undefined when the write was refused before the read. */
  live?: KubeObject | null;
  /** What the write does to the object; undefined before the read. */
  effect?: 'create' | 'update' | 'delete';
  /** The live object's pins: its resourceVersion, and for a delete its uid. */
  resourceVersion?: string;
  uid?: string;
  /** The operation as it is (or would be) sent: the prepared one once the object was read, else the request's. */
  operation: ClusterOperation;
  /** Set once the object was read and the caller prepared the write. */
  prepared?: PreparedWrite;
  /** The accepted dry run, its object as the server would store it (the ledger records it; never shown as is). */
  dryRun?: Extract<DryRunResult, { accepted: true }>;
  /** The dry run's object differs from the live one in some significant field. */
  changed?: boolean;
  /** Live against the dry run's object, redacted (Secret data as `***`, known Secret values scrubbed), unnamed removals flagged, at most MAX_DIFF_ENTRIES. */
  diff: FieldChange[];
  diffOmitted?: number;
  /** The API server's `Warning` headers on the dry run, scrubbed. */
  warnings?: string[];
  /** Set when the write may not go ahead. A policy refusal comes with the judged risk and the diff; earlier ones without. */
  refusal?: WriteRefusal;
}
