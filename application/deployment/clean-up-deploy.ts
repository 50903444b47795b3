import { kubectlEquivalent } from '../../domain/actions/cluster-action.js';
import type { ResourceRef } from '../../domain/cluster/kube-types.js';
import { nextSteps } from '../../domain/deployment/workflow.js';
import { ConflictError, DomainError, ForbiddenError, NotConfiguredError } from '../../domain/errors.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { DeployCleanupOutput } from '../../domain/tools/outputs/deployment-outputs.js';
import type { RevertChange } from '../ledger/revert-change.js';
import type { ToolContext } from '../tool-handler.js';
import type { SolutionSessions } from './solution-sessions.js';

type Cleaned = DeployCleanupOutput['cleanup'][number];

/**
 * deployManifests with `cleanup: true`: deletes the objects the last deploy
 * of the solution created, and only those (an object that existed before
 * the deploy is never touched), newest first, each by reverting its
 * creation's change-ledger entry: RevertChange re-reads the object, deletes
 * it only while it is as the deploy left it (pinned to the resourceVersion
 * it read), and records the delete. An object that changed since, is gone,
 * or was not recorded is kept, with why. The cleanup is recorded on the
 * session; asking again retries what was kept, and when every object was
 * already deleted it is a 409.
 */
export class CleanUpDeploy {
  constructor(
    private readonly sessions: SolutionSessions,
    private readonly revert: RevertChange,
    private readonly clock: Clock,
  ) {}

  async execute(solutionId: string, context: ToolContext): Promise<DeployCleanupOutput> {
    const session = await this.sessions.load(solutionId, context);
    const last = session.state.deployment;
    if (!last) throw new ConflictError(`Solution ${solutionId} was never deployed to the cluster: there is nothing to clean up`);
    const created = (last.outcomes ?? []).filter((o) => o.outcome === 'created').reverse();
    if (created.length === 0)
      throw new ConflictError(
        `The last deploy of ${solutionId} (${last.deployedAt}) created no object: nothing to clean up (svc deletes only what a deploy created, never what existed before it)`,
      );
    const results: Cleaned[] = [];
    for (const o of created) {
      const ref: ResourceRef = { apiVersion: o.apiVersion, kind: o.kind, name: o.name, ...(o.namespace ? { namespace: o.namespace } : {}) };
      if (!o.ledgerId) {
        const kubectl = kubectlEquivalent({ type: 'delete', target: ref, description: 'cleanup', risk: 'high', rationale: 'cleanup' });
        results.push({ ...ref, outcome: 'kept', message: `the change ledger did not record its creation, so svc cannot delete it safely: ${kubectl}` });
        continue;
      }
      results.push({ ...ref, ledgerId: o.ledgerId, ...(await this.revertOne(o.ledgerId, context)) });
    }
    if (results.every((r) => r.outcome === 'already-deleted'))
      throw new ConflictError(
        `The objects the last deploy of ${solutionId} created were already deleted (${results.map((r) => `${r.kind} ${r.name} by ${r.revertId}`).join(', ')}): nothing left to clean up`,
        { cleanup: results },
      );
    const fresh = await this.sessions.load(solutionId);
    const saved = await this.sessions.save(fresh, {
      ...fresh.state,
      deployment: { ...last, ready: false, cleanup: { at: new Date(this.clock.now()).toISOString(), objects: results } },
    });
    const kept = results.filter((r) => r.outcome === 'kept');
    const deleted = results.length - kept.length;
    return {
      solutionId,
      status: kept.length ? 'cleanup_incomplete' : 'cleaned_up',
      cleanup: results,
      message: `Deleted ${deleted} of the ${results.length} object(s) the last deploy created.${kept.length ? ` Kept: ${kept.map((k) => `${k.kind} ${k.name} (${k.message})`).join('; ')}` : ''}`,
      nextSteps: nextSteps(solutionId, saved.state),
    };
  }

  /** One created object's delete, through the ledger's revert; its refusal is an outcome, not a failure of the cleanup. */
  private async revertOne(id: string, context: ToolContext): Promise<Pick<Cleaned, 'outcome' | 'revertId' | 'message'>> {
    try {
      const done = await this.revert.execute({ id }, context.caller);
      return { outcome: 'deleted', revertId: done.revert.id };
    } catch (e) {
      const revertedBy = e instanceof ConflictError ? (e.details as { revertedBy?: unknown } | undefined)?.revertedBy : undefined;
      if (typeof revertedBy === 'string') return { outcome: 'already-deleted', revertId: revertedBy };
      // an undo the second-approver rule holds (a high-risk delete by the deploy's author) is this object's: kept, with who may delete it
      if (e instanceof ForbiddenError && (e.details as { secondApproverRequired?: unknown } | undefined)?.secondApproverRequired)
        return { outcome: 'kept', message: e.message };
      // who may not revert, or a cluster not configured, is the cleanup's answer, not one object's
      if (e instanceof DomainError && !(e instanceof ForbiddenError) && !(e instanceof NotConfiguredError)) return { outcome: 'kept', message: e.message };
      throw e;
    }
  }
}
