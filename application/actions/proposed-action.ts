import { ForbiddenError, ValidationError } from '../../domain/errors.js';
import type { ClusterAction, RiskLevel } from '../../domain/actions/cluster-action.js';
import type { JsonPatchOp, ResourceRef } from '../../domain/cluster/kube-types.js';
import type { GitopsMark } from '../../domain/gitops/gitops-ownership.js';
import type { FieldChange } from '../../domain/operations/object-diff.js';

/** The server's verdict on one action's dry run, as shown to the caller; svc's own refusals (scope, policy) come before any dry run. */
export type DryRunVerdict =
  | { accepted: true }
  | {
      accepted: false;
      reason: string;
      message: string;
      causes: { field?: string; message: string }[];
      /** The caller was refused (their cluster RBAC, or an identity svc cannot act as): executing the proposal is 403, not 400. */
      byCaller?: true;
    };

/** One proposed action as the caller sees it and the automatic rule judges it: what, where, the kubectl equivalent, the dry run and the field-level diff. */
export interface ProposedAction {
  /** 1-based position: the order of execution. */
  action: number;
  type: ClusterAction['type'];
  description: string;
  /** svc's assessment (the write guard's one risk): svc's floor for what changes and where, which the model's label can only raise. Every gate reads it. */
  risk: RiskLevel;
  /** Every reason svc found for its risk (high ones first; the model's label last when it raised it); absent when there is none. */
  riskReasons?: string[];
  /** Why the target itself (its kind and place, from discovery) is never written automatically; absent when it is not such a target. */
  sensitive?: string[];
  rationale: string;
  target: ResourceRef;
  /** For people only; svc runs the API operation, never kubectl. */
  kubectl: string;
  /** From the live object and the dry run: `create` when the object does not exist yet. */
  effect: 'create' | 'update' | 'delete';
  dryRun: DryRunVerdict;
  /** Field-level diff of the dry-run result against the live object (status and server metadata left out); empty for a delete or a refused dry run. */
  diff: FieldChange[];
  /** Diff entries left out past the cap. */
  diffOmitted?: number;
  /** The API server's `Warning` headers on the dry run. */
  warnings?: string[];
  /**
   * For an object patch to a custom resource: the RFC 6902 operations svc
   * computed from the live object (customResourceOperations). They are what
   * the dry run tested, what execution sends and what the ledger records.
   */
  jsonPatch?: JsonPatchOp[];
  /** `metadata.resourceVersion` of the live object the diff was made against: the precondition of the write at execution. */
  resourceVersion?: string;
  /** For a delete: `metadata.uid` of the live object, a precondition of the delete too (an object re-created under the name since is not deleted). */
  uid?: string;
  /** The GitOps controller that manages the object, when one does. */
  gitops?: GitopsMark;
}

/**
 * Why a proposal with refused actions cannot be executed: 403 FORBIDDEN when
 * any refusal was the caller's (the cluster's RBAC refused them, as at every
 * other cluster 403), else 400 VALIDATION_ERROR.
 */
export function cannotExecute(message: string, actions: readonly ProposedAction[]): ValidationError | ForbiddenError {
  const byCaller = actions.some((a) => !a.dryRun.accepted && a.dryRun.byCaller);
  return byCaller ? new ForbiddenError(message, { reason: 'Forbidden' }) : new ValidationError(message);
}

/** The refused actions of a preview, in words: which, why, and the API server's or svc's message. */
export function refusals(actions: readonly ProposedAction[]): string {
  return actions
    .filter((a) => !a.dryRun.accepted)
    .map((a) => `action ${a.action} (${a.description}) was refused${a.dryRun.accepted ? '' : ` (${a.dryRun.reason}): ${a.dryRun.message}`}`)
    .join('; ');
}
