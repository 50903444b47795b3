import { actionTarget, pinnedOperation, toOperation, type ActionPin, type ClusterAction } from '../../domain/actions/cluster-action.js';
import { customResourceOperations, withOperations } from '../../domain/actions/custom-resource-patch.js';
import { describeTarget } from '../../domain/actions/write-scope.js';
import type { PatchBody } from '../../domain/cluster/kube-types.js';
import type { PreparedWrite, WriteRequest } from '../guarded-write/write-request.js';
import type { ProposedAction } from './proposed-action.js';

/** What an action was approved against: its effect and the live object's pins, as its preview recorded them. */
type Approved = Pick<ProposedAction, 'effect' | 'resourceVersion' | 'uid'>;

/**
 * What an action's write is pinned to: the version it was judged against;
 * an apply of an object that was absent is sent as a create (it must still
 * be absent: 409 AlreadyExists otherwise); a delete also carries the uid,
 * and a Pod delete the uid alone (a Pod's status, and so its
 * resourceVersion, changes all the time; another Pod under the same name is
 * what matters).
 */
export function pinOf(action: ClusterAction, approved: Approved | undefined): ActionPin {
  if (!approved) return {};
  if (action.type === 'apply' && approved.effect === 'create') return { create: true };
  const t = actionTarget(action);
  if (action.type === 'delete' && approved.uid && t.apiVersion === 'v1' && t.kind === 'Pod') return { uid: approved.uid };
  return {
    ...(approved.resourceVersion ? { resourceVersion: approved.resourceVersion } : {}),
    ...(action.type === 'delete' && approved.uid ? { uid: approved.uid } : {}),
  };
}

/** The action's own object patch, when svc sends computed operations instead. */
const askedOf = (action: ClusterAction, computed: boolean): Pick<PreparedWrite, 'asked'> =>
  computed && action.type === 'patch' ? { asked: { patchType: 'merge', patch: action.patch as PatchBody } } : {};

/**
 * A proposed action as the guarded-write pipeline previews it, against the
 * object just read: an apply of an absent object dry-run as the create it
 * will be sent as; a custom resource's object patch turned into the JSON
 * Patch operations from that object (refused as NoChange when they are
 * none). The live version is recorded as the pin of the later write, not
 * sent with the preview's dry run: a JSON Patch that replaces /metadata
 * would be refused for the pin's own operation rather than judged.
 */
export function previewedWrite(action: ClusterAction, now: Date): WriteRequest {
  return {
    ref: actionTarget(action),
    operation: toOperation(action, now),
    label: action.risk,
    prepare: (live) => {
      const operations = customResourceOperations(action, live);
      const sent = withOperations(action, operations);
      const pin = live === null ? { create: true as const } : undefined;
      const prepared = { operation: pinnedOperation(sent, now, pin), ...(operations ? { jsonPatch: operations } : {}), ...askedOf(action, !!operations) };
      if (operations?.length !== 0) return prepared;
      const message = `${actionTarget(action).kind} ${actionTarget(action).name} already has what the patch sets: there is nothing to change`;
      return { ...prepared, refusal: { reason: 'NoChange', message, causes: [] } };
    },
  };
}

/**
 * An approved action as the pipeline re-checks it at execution: exactly as
 * approved (a custom resource's patch as the operations its preview
 * computed, never recomputed), pinned to what it was approved against; an
 * object previewed as absent must still be absent (AlreadyExists).
 */
export function approvedWrite(action: ClusterAction, approved: ProposedAction | undefined, now: Date): WriteRequest {
  const sent = withOperations(action, approved?.jsonPatch);
  return {
    ref: actionTarget(action),
    operation: toOperation(sent, now),
    label: action.risk,
    prepare: (live) => {
      const prepared = { operation: pinnedOperation(sent, now, pinOf(action, approved)), ...askedOf(action, !!approved?.jsonPatch) };
      if (!(approved?.effect === 'create' && live)) return prepared;
      const message = `${describeTarget(actionTarget(action))} did not exist when the change was previewed and exists now; nothing was applied. Start again to review the change against it.`;
      return { ...prepared, refusal: { reason: 'AlreadyExists', message, causes: [] } };
    },
  };
}
