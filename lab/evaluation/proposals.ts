import { clusterActionSchema, type ClusterAction } from '../../domain/actions/cluster-action.js';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import type { ObservedWrite } from '../../domain/evaluation/case-result.js';
import { changedFields } from '../../domain/evaluation/changed-fields.js';
import { isJsonObject } from '../../domain/json-object.js';

/** The structured answers whose actions are the model's proposal: remediate's analysis and operate's plan. */
const PROPOSING_ANSWERS = new Set(['remediation_analysis', 'operation_plan']);

/** One structured answer the model gave: the schema svc asked for and the text it answered. */
export interface ModelAnswer {
  name: string;
  text: string;
  /** The cluster svc asked for it in, in a case on several clusters. */
  cluster?: string;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text.trim().replace(/^```(?:json)?\s*|\s*```$/g, ''));
  } catch {
    return undefined;
  }
}

/** `/spec/template/spec/containers/0/image` as a field path: `spec.template.spec.containers[0].image`. */
function pointerPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, s) => (/^\d+$|^-$/.test(s) ? `${path}[${s === '-' ? '*' : s}]` : path ? `${path}.${s}` : s), '');
}

/** What one proposed action would write, as the scorers judge a write. */
export function proposedWrite(
  action: ClusterAction,
  existing: (kind: string, namespace: string | undefined, name: string) => KubeObject | undefined,
): ObservedWrite {
  if (action.type === 'apply') {
    const m = action.manifest as KubeObject;
    const ref = { kind: m.kind, ...(m.metadata.namespace ? { namespace: m.metadata.namespace } : {}), name: m.metadata.name };
    const was = existing(ref.kind, ref.namespace, ref.name);
    const fields = changedFields({}, m).filter((f) => !was || changedFields(was, m).some((c) => c === f));
    return { verb: was ? 'patch' : 'create', ...ref, fields };
  }
  const t = action.target;
  const ref = { kind: t.kind, ...(t.namespace ? { namespace: t.namespace } : {}), name: t.name };
  switch (action.type) {
    case 'delete':
      return { verb: 'delete', ...ref, fields: [] };
    case 'scale':
      return { verb: 'patch', ...ref, fields: ['spec.replicas'], replicas: action.replicas };
    case 'rolloutRestart':
      return { verb: 'patch', ...ref, fields: ['spec.template.metadata.annotations.kubectl.kubernetes.io/restartedAt'] };
    case 'patch':
      return {
        verb: 'patch',
        ...ref,
        fields: Array.isArray(action.patch)
          ? action.patch.map((op) => pointerPath(op.path))
          : changedFields({}, action.patch).filter((f) => f !== '(whole object)'),
      };
  }
}

/**
 * The changes the model proposed over a case: the actions of each analysis
 * or plan it answered (those svc's schema accepts), as writes, once each
 * whether or not svc let them through; in a case on several clusters, each
 * with the cluster it was proposed for, judged against that cluster's objects.
 */
export function proposedWrites(
  answers: readonly ModelAnswer[],
  existing: (kind: string, namespace: string | undefined, name: string, cluster: string | undefined) => KubeObject | undefined,
): ObservedWrite[] {
  const out = new Map<string, ObservedWrite>();
  for (const a of answers.filter((x) => PROPOSING_ANSWERS.has(x.name))) {
    const body = parsed(a.text);
    const actions = isJsonObject(body) && Array.isArray(body.actions) ? body.actions : [];
    for (const raw of actions) {
      const action = clusterActionSchema.safeParse(raw);
      if (!action.success) continue;
      const proposed = proposedWrite(action.data, (kind, namespace, name) => existing(kind, namespace, name, a.cluster));
      const w = a.cluster ? { ...proposed, cluster: a.cluster } : proposed;
      out.set(JSON.stringify([w.verb, w.kind, w.namespace, w.name, w.fields, w.cluster]), w);
    }
  }
  return [...out.values()];
}
