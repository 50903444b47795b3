import { actionTarget, kubectlEquivalent, toOperation, type ClusterAction } from '../../domain/actions/cluster-action.js';
import { ValidationError } from '../../domain/errors.js';
import type { GitopsMark } from '../../domain/gitops/gitops-ownership.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { ClusterWriter } from '../../domain/ports/cluster-writer.js';
import { dryRunOperation, type ExecutionReport } from '../actions/execute-actions.js';
import type { DeliverFix, DeliveredFix, FixDelivery } from './deliver-fix.js';
import { gitopsMarks } from './gitops-owner.js';

/** How a caller asks an approved change of GitOps-managed objects to be made. */
export type Delivery = 'git' | 'live';

/** Marks per action, null where no controller manages the object (JSON keeps the positions). */
export type ProposalMarks = (GitopsMark | null)[];

/**
 * Each action's mark; with the git delivery, a mark whose change cannot be
 * committed says why (`noGitDelivery`), so the proposal offers git only when
 * the source is known and one svc pushes to.
 */
export async function markProposal(
  reader: ClusterReader,
  actions: readonly ClusterAction[],
  delivery?: Pick<DeliverFix, 'refusalFor'>,
): Promise<ProposalMarks | undefined> {
  if (actions.length === 0) return undefined;
  const marks = (await gitopsMarks(reader, actions.map(actionTarget))).map((m) => {
    const refusal = m && delivery?.refusalFor(m);
    return m ? { ...m, ...(refusal ? { noGitDelivery: refusal } : {}) } : null;
  });
  return marks.some(Boolean) ? marks : undefined;
}

/** Whether every action's change can be committed to its source: each object managed, its git source known and one svc pushes to. */
export function gitDeliverable(actions: readonly ClusterAction[], marks: ProposalMarks | undefined): boolean {
  return actions.every((_, i) => marks?.[i]?.source && !marks[i]!.noGitDelivery);
}

const CONTROLLER = { argocd: 'Argo CD', flux: 'Flux' } as const;

/** The objects a controller manages, in words: `Deployment shop/web (Argo CD, Application argocd/shop)`. */
export function managedObjects(actions: readonly ClusterAction[], marks: ProposalMarks | undefined): string[] {
  return actions.flatMap((a, i) => {
    const m = marks?.[i];
    if (!m) return [];
    const t = actionTarget(a);
    return [`${t.kind} ${t.namespace ? `${t.namespace}/` : ''}${t.name} (${CONTROLLER[m.controller]}, ${m.owner})`];
  });
}

/** The warning a proposal carries when a controller manages any of its objects. */
export function gitopsWarning(actions: readonly ClusterAction[], marks: ProposalMarks | undefined): string | undefined {
  const managed = managedObjects(actions, marks);
  if (managed.length === 0) return undefined;
  const why = [...new Set(actions.flatMap((_, i) => (marks?.[i]?.noGitDelivery ? [marks[i]!.noGitDelivery!] : [])))];
  return (
    `Managed by GitOps: ${managed.join('; ')}. A live change will be reverted by the controller at its next sync. ` +
    (gitDeliverable(actions, marks)
      ? 'Execute with delivery "git" to commit the change to the source repository instead (a pull request where the host is known), or delivery "live" to change the cluster anyway.'
      : `svc cannot commit this change to git (${why.length ? why.join('; ') : 'it cannot tell the git source of every object'}), so it can only be made live (delivery "live"), and the controller will revert it: change the source yourself.`)
  );
}

/** Automatic mode never live-patches a GitOps-managed object: the reason it did not act, or undefined. */
export function automaticRefusal(actions: readonly ClusterAction[], marks: ProposalMarks | undefined): string | undefined {
  const managed = managedObjects(actions, marks);
  return managed.length ? `automatic mode never changes a GitOps-managed object live (${managed.join('; ')})` : undefined;
}

/** A manual execution of a proposal with managed objects must say how: refused (400) without `delivery`. */
export function requireDelivery(actions: readonly ClusterAction[], marks: ProposalMarks | undefined, delivery: Delivery | undefined, retry: string): void {
  if (delivery !== undefined || managedObjects(actions, marks).length === 0) return;
  throw new ValidationError(`${gitopsWarning(actions, marks)} Call again with ${retry} and "delivery": "git" or "live".`);
}

/**
 * The change as a commit instead of a live write: every action is dry-run on
 * the API server first (a patch the server would refuse is not committed
 * either), then delivered through git. The report says nothing was applied.
 */
export async function deliverInstead(
  writer: ClusterWriter,
  deliver: DeliverFix,
  fix: FixDelivery,
): Promise<{ report: ExecutionReport; gitDelivery?: DeliveredFix }> {
  const notRun = (message: string) =>
    fix.actions.map((a, j) => ({ action: j + 1, description: a.description, kubectl: kubectlEquivalent(a), status: 'not-run' as const, message }));
  for (const [i, action] of fix.actions.entries()) {
    const verdict = await dryRunOperation(writer, toOperation(action, fix.now));
    if (verdict.accepted) continue;
    const refused = { action: i + 1, description: action.description, reason: verdict.reason, message: verdict.message, causes: verdict.causes };
    return { report: { dryRunPassed: false, refused, outcomes: notRun('the dry run refused an action; nothing was committed') } };
  }
  const gitDelivery = await deliver.execute({
    ...fix,
    dryRun: { accepted: true, message: `the API server accepted the dry run of each of the ${fix.actions.length} change(s) on the live objects`, diff: [] },
  });
  return {
    report: { dryRunPassed: true, outcomes: notRun(`delivered through git (commit ${gitDelivery.commit.slice(0, 12)} on ${gitDelivery.branch})`) },
    gitDelivery,
  };
}
