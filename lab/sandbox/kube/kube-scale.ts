/**
 * The `scale` subresource of Deployments, ReplicaSets and StatefulSets, as
 * kube-apiserver answers it (what `kubectl scale` reads and patches): an
 * autoscaling/v1 Scale carrying the workload's name, namespace, uid and
 * resourceVersion, `spec.replicas`, and `status.replicas` with the selector as
 * text. GET reads it; PATCH (merge, strategic merge or JSON patch) and PUT
 * change the workload's `spec.replicas` only (its generation rises when it
 * changed); `dryRun=All` persists nothing; a negative or non-integer count is
 * 422 Invalid.
 */
import type { RecordedRequest } from './kube-api-server.js';
import type { KubeCluster, Obj } from './kube-cluster.js';
import { applyJsonPatch, applyMergePatch } from './kube-patches.js';
import { updateOwnership } from './kube-ssa.js';
import { statusBody, type Answer, type Target } from './kube-writes.js';

function scaleOf(o: Obj): Obj {
  const { name, namespace, uid, resourceVersion, creationTimestamp } = o.metadata;
  const selector = Object.entries((o.spec?.selector?.matchLabels ?? {}) as Record<string, string>)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name, namespace, uid, resourceVersion, creationTimestamp },
    spec: { replicas: o.spec?.replicas ?? 1 },
    status: { replicas: o.status?.replicas ?? 0, selector },
  };
}

export function scaleAnswer(c: KubeCluster, r: RecordedRequest, t: Target): Answer {
  const parent = c.objects.get(t.path);
  const group = t.gv.includes('/') ? `.${t.gv.split('/')[0]}` : '';
  if (!parent) return [404, statusBody(404, 'NotFound', `${t.resource}${group} "${t.name}" not found`)];
  const current = scaleOf(parent);
  if (r.method === 'GET') return [200, current];
  if (r.method !== 'PATCH' && r.method !== 'PUT')
    return [405, statusBody(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource')];
  let wanted: Obj;
  try {
    const body = JSON.parse(r.body ?? '') as unknown;
    if (r.method === 'PATCH' && r.contentType === 'application/json-patch+json') {
      const out = applyJsonPatch(current, body as unknown[]);
      if ('error' in out) return [422, statusBody(422, 'Invalid', `the server rejected our request due to an error in our request: ${out.error}`)];
      wanted = out.result;
    } else wanted = r.method === 'PUT' ? (body as Obj) : (applyMergePatch(structuredClone(current), body) as Obj);
  } catch {
    return [400, statusBody(400, 'BadRequest', 'error decoding the Scale: the body is not JSON')];
  }
  const version = wanted.metadata?.resourceVersion;
  if (r.method === 'PUT' && version && version !== parent.metadata.resourceVersion)
    return [
      409,
      statusBody(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${t.resource}${group} "${t.name}": the object has been modified; please apply your changes to the latest version and try again`,
      ),
    ];
  const replicas = wanted.spec?.replicas as unknown;
  if (!Number.isInteger(replicas) || (replicas as number) < 0)
    return [
      422,
      statusBody(
        422,
        'Invalid',
        `Scale.autoscaling "${t.name}" is invalid: spec.replicas: Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`,
        [{ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`, field: 'spec.replicas' }],
      ),
    ];
  if (r.query.get('dryRun') === 'All') return [200, { ...current, spec: { replicas } }];
  const manager = r.query.get('fieldManager') ?? 'unknown';
  c.update(parent, (p) => {
    if (p.spec.replicas === replicas) return;
    const before = structuredClone(p);
    p.spec.replicas = replicas;
    p.metadata.generation = (p.metadata.generation ?? 1) + 1;
    p.metadata.managedFields = updateOwnership(before, p, manager, 'autoscaling/v1', c.now(), 'scale');
  });
  c.reconcile();
  return [200, scaleOf(parent)];
}
