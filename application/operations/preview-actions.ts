import { actionTarget, kubectlEquivalent, toOperation, type ClusterAction } from '../../domain/actions/cluster-action.js';
import type { DryRunResult, KubeObject } from '../../domain/cluster/kube-types.js';
import { ExecutionError, NotConfiguredError } from '../../domain/errors.js';
import { diffObjects } from '../../domain/operations/object-diff.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { ClusterWriter } from '../../domain/ports/cluster-writer.js';
import { dryRunOperation } from '../actions/execute-actions.js';
import type { ProposedAction } from './operation-state.js';

/** Diff entries shown per action. */
export const MAX_DIFF_ENTRIES = 100;

/** A kind the cluster does not serve, or a request it rejects outright, is a refusal to show, not a failed run. */
async function refusalOf<T>(work: () => Promise<T>): Promise<T | Extract<DryRunResult, { accepted: false }>> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof ExecutionError && !(e instanceof NotConfiguredError)) return { accepted: false, reason: 'Rejected', message: e.message, causes: [] };
    throw e;
  }
}

const refused = (v: unknown): v is Extract<DryRunResult, { accepted: false }> =>
  typeof v === 'object' && v !== null && (v as { accepted?: unknown }).accepted === false;

/**
 * Reads each action's live object, dry-runs the action server-side (nothing
 * is persisted) and diffs the dry-run result against the live object. Every
 * action is dry-run, also after a refusal, so the caller sees all verdicts.
 */
export async function previewActions(reader: ClusterReader, writer: ClusterWriter, actions: ClusterAction[], now: Date): Promise<ProposedAction[]> {
  const out: ProposedAction[] = [];
  for (const [i, action] of actions.entries()) {
    const target = actionTarget(action);
    const base = {
      action: i + 1,
      type: action.type,
      description: action.description,
      risk: action.risk,
      rationale: action.rationale,
      target,
      kubectl: kubectlEquivalent(action),
    };
    const live = await refusalOf(() => reader.get(target));
    const verdict = refused(live) ? live : await refusalOf(() => dryRunOperation(writer, toOperation(action, now)));
    const liveObject = refused(live) ? null : (live as KubeObject | null);
    const effect = action.type === 'delete' ? 'delete' : liveObject ? 'update' : 'create';
    if (!verdict.accepted) {
      out.push({
        ...base,
        effect,
        dryRun: {
          accepted: false,
          reason: verdict.reason,
          message: verdict.message,
          causes: verdict.causes.map(({ field, message }) => ({ ...(field ? { field } : {}), message })),
        },
        diff: [],
      });
      continue;
    }
    const diff = action.type === 'delete' ? [] : diffObjects(liveObject, verdict.object);
    out.push({
      ...base,
      effect,
      dryRun: { accepted: true },
      diff: diff.slice(0, MAX_DIFF_ENTRIES),
      ...(diff.length > MAX_DIFF_ENTRIES ? { diffOmitted: diff.length - MAX_DIFF_ENTRIES } : {}),
    });
  }
  return out;
}
