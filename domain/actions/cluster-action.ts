import { z } from 'zod';
import type { KubeObject, PatchBody, PatchType, ResourceRef } from '../cluster/kube-types.js';
import { patchTypeFor } from '../cluster/patch-type.js';
import { shellWord } from '../shell-word.js';

export const RISK_LEVELS = ['low', 'medium', 'high'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

/** true when `risk` is at or below `max`. */
export function riskWithin(risk: RiskLevel, max: RiskLevel): boolean {
  return RISK_LEVELS.indexOf(risk) <= RISK_LEVELS.indexOf(max);
}

const MAX_MANIFEST_CHARS = 65536;
const MAX_PATCH_CHARS = 16384;

const ref = z.strictObject({
  apiVersion: z.string().min(1).max(100),
  kind: z.string().min(1).max(63),
  name: z.string().min(1).max(253),
  namespace: z.string().min(1).max(63).optional(),
});

const bounded = (max: number) => (v: unknown) => JSON.stringify(v).length <= max;
const manifest = z
  .looseObject({
    apiVersion: z.string().min(1).max(100),
    kind: z.string().min(1).max(63),
    metadata: z.looseObject({ name: z.string().min(1).max(253), namespace: z.string().max(63).optional() }),
  })
  .refine(bounded(MAX_MANIFEST_CHARS), `a manifest may be at most ${MAX_MANIFEST_CHARS} characters of JSON`);
const jsonPatchOp = z.strictObject({
  op: z.enum(['add', 'remove', 'replace', 'move', 'copy', 'test']),
  path: z.string().max(500).regex(/^\//, 'a JSON Pointer such as /spec/replicas'),
  from: z.string().max(500).regex(/^\//).optional(),
  value: z.unknown().optional(),
});
const patch = z
  .union([z.record(z.string(), z.unknown()).refine((p) => Object.keys(p).length > 0, 'a patch must change something'), z.array(jsonPatchOp).min(1).max(100)])
  .refine(bounded(MAX_PATCH_CHARS), `a patch may be at most ${MAX_PATCH_CHARS} characters of JSON`)
  .describe(
    'An object: a strategic merge patch for built-in kinds (name only the fields that change; containers, env, volumeMounts and ports merge by their keys); for custom resources the fields to set (null removes one, a list replaces the list), which svc turns into JSON Patch operations against the object as it is; or a list of JSON Patch operations (RFC 6902), to change single items of a list in a custom resource',
  );

const common = {
  description: z.string().min(1).max(500).describe('What this action does, for a person'),
  risk: z.enum(RISK_LEVELS).describe('low: no disruption; medium: brief disruption or a restart; high: data loss or an outage possible'),
  rationale: z.string().min(1).max(1000).describe('Why this action fixes or serves the request'),
};

/**
 * One change to the cluster as a model may propose it: a Kubernetes API
 * operation, never a command line. The model's answer is parsed with this
 * schema; nothing else reaches the write port.
 */
export const clusterActionSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('apply'), manifest, ...common }),
  z.strictObject({ type: z.literal('patch'), target: ref, patch, ...common }),
  z.strictObject({ type: z.literal('delete'), target: ref, ...common }),
  z.strictObject({ type: z.literal('scale'), target: ref, replicas: z.number().int().min(0).max(1000), ...common }),
  z.strictObject({ type: z.literal('rolloutRestart'), target: ref, ...common }),
]);
export type ClusterAction = z.infer<typeof clusterActionSchema>;

/**
 * What the write port is asked to do for an action; `resourceVersion`, when
 * set, is the write's precondition. A `create` (an apply of an object its
 * preview found absent) has the object's absence as its precondition; a
 * delete may be pinned to the object's `uid` too.
 */
export type ClusterOperation = (
  | { method: 'apply'; manifest: KubeObject }
  | { method: 'create'; manifest: KubeObject }
  | { method: 'patch'; ref: ResourceRef; patch: PatchBody; patchType: PatchType }
  | { method: 'delete'; ref: ResourceRef; uid?: string }
) & { resourceVersion?: string };

/** What an action was previewed against, pinned on its write: the live object's resourceVersion and uid, or its absence (`create`). */
export interface ActionPin {
  resourceVersion?: string;
  /** A delete's uid precondition (a Pod re-created under the same name since is not deleted). */
  uid?: string;
  /** The object was absent: an apply is sent as a create (409 AlreadyExists when it appeared since). */
  create?: true;
}

/** toOperation with the action's pin: an apply of an absent object becomes a create, a delete carries the uid. */
export function pinnedOperation(action: ClusterAction, now: Date, pin: ActionPin | undefined): ClusterOperation {
  const op = toOperation(action, now, pin?.create ? undefined : pin?.resourceVersion);
  if (op.method === 'apply' && pin?.create) return { method: 'create', manifest: op.manifest };
  if (op.method === 'delete' && pin?.uid) return { ...op, uid: pin.uid };
  return op;
}

/**
 * The API operation behind an action; scale and rollout restart are merge
 * patches, as kubectl sends them. `now` stamps a restart. `resourceVersion`:
 * the version of the object the action was approved against.
 */
export function toOperation(action: ClusterAction, now: Date, resourceVersion?: string): ClusterOperation {
  const pin = resourceVersion ? { resourceVersion } : {};
  switch (action.type) {
    case 'apply':
      return { method: 'apply', manifest: action.manifest as KubeObject, ...pin };
    case 'patch':
      return {
        method: 'patch',
        ref: action.target,
        patch: action.patch as PatchBody,
        patchType: patchTypeFor(action.target.apiVersion, action.patch as PatchBody),
        ...pin,
      };
    case 'delete':
      return { method: 'delete', ref: action.target, ...pin };
    case 'scale':
      return { method: 'patch', ref: action.target, patch: { spec: { replicas: action.replicas } }, patchType: 'merge', ...pin };
    case 'rolloutRestart':
      return {
        method: 'patch',
        ref: action.target,
        patch: { spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': now.toISOString() } } } } },
        patchType: 'merge',
        ...pin,
      };
  }
}

/** The object an action is about. */
export function actionTarget(action: ClusterAction): ResourceRef {
  if (action.type === 'apply') {
    const m = action.manifest as KubeObject;
    return { apiVersion: m.apiVersion, kind: m.kind, name: m.metadata.name, namespace: m.metadata.namespace };
  }
  return action.target;
}

/** The kubectl command a person would run for the same change: shown for people only, never executed (svc has no kubectl). */
export function kubectlEquivalent(action: ClusterAction): string {
  const t = actionTarget(action);
  const resource = `${t.kind.toLowerCase()}${t.apiVersion.includes('/') ? `.${t.apiVersion.split('/')[1]}.${t.apiVersion.split('/')[0]}` : ''}/${t.name}`;
  const ns = t.namespace ? ` -n ${shellWord(t.namespace)}` : '';
  switch (action.type) {
    case 'apply':
      return `kubectl apply --server-side --field-manager=svc -f - <<'EOF'\n${JSON.stringify(action.manifest, null, 2)}\nEOF`;
    case 'patch':
      return `kubectl patch ${shellWord(resource)}${ns} --type=${patchTypeFor(t.apiVersion, action.patch as PatchBody)} -p ${shellWord(JSON.stringify(action.patch))}`;
    case 'delete':
      return `kubectl delete ${shellWord(resource)}${ns}`;
    case 'scale':
      return `kubectl scale ${shellWord(resource)}${ns} --replicas=${action.replicas}`;
    case 'rolloutRestart':
      return `kubectl rollout restart ${shellWord(resource)}${ns}`;
  }
}
