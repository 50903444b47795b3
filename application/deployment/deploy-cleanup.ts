import { kubectlEquivalent } from '../../domain/actions/cluster-action.js';
import type { ResourceRef } from '../../domain/cluster/kube-types.js';
import type { ObjectOutcome } from './deploy-checks.js';

/** One object a deploy created, as the cleanup offer names it. */
export interface CreatedObject extends ResourceRef {
  /** The ledger entry of its creation: `POST /api/v1/changes/{id}/revert` deletes it. */
  ledgerId?: string;
}

/** What a stopped deploy answers about cleaning up: the objects it created, newest first, and how to delete exactly those. */
export interface CleanupOffer {
  answer: {
    created: CreatedObject[];
    /** The one call that deletes them, through the ledger's revert; absent when the ledger recorded none. */
    call?: { tool: 'deployManifests'; params: { solutionId: string; cleanup: true } };
    /** kubectl commands for the objects the ledger did not record: svc cannot delete those by itself. */
    kubectl?: string[];
  };
  /** One sentence for the answer's message. */
  summary: string;
}

const refOf = (o: ObjectOutcome): ResourceRef => ({ apiVersion: o.apiVersion, kind: o.kind, name: o.name, ...(o.namespace ? { namespace: o.namespace } : {}) });

/**
 * The objects this run created (outcome `created`: they did not exist
 * before it), newest first, with the call that deletes them and only them:
 * `deployManifests {solutionId, cleanup: true}` reverts each one's ledger
 * entry. An object the ledger did not record (it failed to append) gets a
 * kubectl command instead, said plainly. undefined when the run created
 * nothing.
 */
export function cleanupOffer(solutionId: string, outcomes: readonly ObjectOutcome[]): CleanupOffer | undefined {
  const created = outcomes
    .filter((o) => o.outcome === 'created')
    .reverse()
    .map((o) => ({ ...refOf(o), ...(o.ledgerId ? { ledgerId: o.ledgerId } : {}) }));
  if (created.length === 0) return undefined;
  const unrecorded = created.filter((o) => !o.ledgerId);
  const kubectl = unrecorded.map((o) =>
    kubectlEquivalent({
      type: 'delete',
      target: refOf({ ...o, outcome: 'created', risk: 'high' }),
      description: 'undo a partial deploy',
      risk: 'high',
      rationale: 'cleanup',
    }),
  );
  const viaLedger = created.length - unrecorded.length;
  const summary = [
    viaLedger
      ? `deployManifests with cleanup: true deletes the ${viaLedger} object(s) this run created (newest first, each only while it is as this run left it).`
      : '',
    unrecorded.length ? `${unrecorded.length} created object(s) are not in the change ledger: delete them with the kubectl commands in cleanup.kubectl.` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return {
    answer: {
      created,
      ...(viaLedger ? { call: { tool: 'deployManifests' as const, params: { solutionId, cleanup: true as const } } } : {}),
      ...(kubectl.length ? { kubectl } : {}),
    },
    summary,
  };
}
