import type { KubeObject } from './kube-types.js';
import { asJsonObject } from '../json-object.js';

type Obj = Record<string, unknown>;

const asArr = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(asJsonObject) : []);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/**
 * One line of state per object, the way `kubectl get` shows it: enough for a
 * model (or a person) to see what is wrong without the whole object.
 */
export function summarizeObject(o: KubeObject): string {
  const where = o.metadata.namespace ? `${o.metadata.namespace}/` : '';
  return `${o.kind} ${where}${o.metadata.name}: ${statusSummary(o)}`;
}

export function statusSummary(o: KubeObject): string {
  const status = asJsonObject(o.status);
  const spec = asJsonObject(o.spec);
  switch (o.kind) {
    case 'Pod':
      return podSummary(status);
    case 'Deployment':
    case 'StatefulSet':
    case 'ReplicaSet': {
      const desired = spec.replicas === undefined ? 1 : num(spec.replicas);
      const parts = [`ready ${num(status.readyReplicas)}/${desired}`];
      if (o.kind === 'Deployment') parts.push(`updated ${num(status.updatedReplicas)}`, `available ${num(status.availableReplicas)}`);
      return [...parts, ...falseConditions(status)].join(', ');
    }
    default: {
      const conditions = falseConditions(status);
      return conditions.length ? conditions.join(', ') : typeof status.phase === 'string' ? `phase ${status.phase}` : 'ok';
    }
  }
}

function podSummary(status: Obj): string {
  const containers = asArr(status.containerStatuses);
  const ready = containers.filter((c) => c.ready === true).length;
  const restarts = containers.reduce((n, c) => n + num(c.restartCount), 0);
  const parts = [`phase ${typeof status.phase === 'string' ? status.phase : 'Unknown'}`, `ready ${ready}/${containers.length}`, `restarts ${restarts}`];
  for (const c of containers) {
    const waiting = asJsonObject(asJsonObject(c.state).waiting);
    if (typeof waiting.reason === 'string') parts.push(`${String(c.name)} waiting: ${waiting.reason}`);
    const last = asJsonObject(asJsonObject(c.lastState).terminated);
    if (typeof last.reason === 'string') parts.push(`${String(c.name)} last terminated: ${last.reason} (exit ${num(last.exitCode)})`);
  }
  return parts.join(', ');
}

function falseConditions(status: Obj): string[] {
  return asArr(status.conditions)
    .filter((c) => c.status !== 'True' || c.type === 'Progressing')
    .filter((c) => !(c.type === 'Progressing' && c.status === 'True' && c.reason === 'NewReplicaSetAvailable'))
    .map((c) => `${String(c.type)}=${String(c.status)}${typeof c.reason === 'string' ? ` (${c.reason})` : ''}`);
}

/** The object without what only adds bulk: the last-applied annotation and managed fields. */
export function compactObject(o: KubeObject): KubeObject {
  const { annotations, managedFields: _m, ...meta } = o.metadata;
  const kept = annotations
    ? Object.fromEntries(Object.entries(annotations).filter(([k]) => k !== 'kubectl.kubernetes.io/last-applied-configuration'))
    : undefined;
  return { ...o, metadata: { ...meta, ...(kept && Object.keys(kept).length ? { annotations: kept } : {}) } };
}
