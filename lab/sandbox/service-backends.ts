/**
 * What a Service and an Ingress reach in the sandbox, as the endpoints
 * controller and an ingress controller decide it:
 *
 * - a pod is behind a Service port when it is ready and the port's
 *   `targetPort` resolves in it: a number (or none: the port itself) always
 *   does, a name only when one of the pod's containers declares a port of
 *   that name (the endpoints controller leaves the pod out otherwise, so a
 *   Service whose named targetPort no pod declares has no endpoints);
 * - an Ingress backend serves when its Service exists, has the port the
 *   backend names (by `number` or by `name`) and a ready pod behind that port
 *   (ingress-nginx answers 503 otherwise).
 */
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import type { KubeCluster, Obj } from './stand-in.js';
import { podReady } from './kube/kube-pods.js';

/** Whether a Service port's targetPort resolves in the pod: a number always, a name when a container declares a port of that name. */
export function targetPortResolves(servicePort: Obj, pod: Obj): boolean {
  const target = servicePort.targetPort ?? servicePort.port;
  if (typeof target !== 'string' || /^\d+$/.test(target)) return true;
  return ((pod.spec?.containers ?? []) as Obj[]).some((k) => ((k.ports ?? []) as Obj[]).some((p) => p.name === target));
}

/** The live pods the Service's selector picks that are ready and resolve `servicePort` (each port of the Service when none is named). */
export function readyEndpoints(c: KubeCluster, service: Obj, servicePort?: Obj): Obj[] {
  const selector = Object.entries((service.spec?.selector ?? {}) as Record<string, string>);
  if (!selector.length) return [];
  const ports: Obj[] = servicePort ? [servicePort] : (service.spec?.ports ?? []);
  return [...c.objects.values()].filter(
    (p) =>
      p.kind === 'Pod' &&
      p.metadata.namespace === service.metadata.namespace &&
      !p.metadata.deletionTimestamp &&
      selector.every(([k, v]) => p.metadata.labels?.[k] === v) &&
      podReady(p) &&
      ports.every((port) => targetPortResolves(port, p)),
  );
}

/** Every Service backend of an Ingress (the default backend and each rule's paths). */
function backendsOf(ingress: Obj): Obj[] {
  const paths = ((ingress.spec?.rules ?? []) as Obj[]).flatMap((r) => (r.http?.paths ?? []) as Obj[]).map((p) => p.backend);
  return [ingress.spec?.defaultBackend, ...paths].filter((b): b is Obj => !!b?.service);
}

/** Why one Ingress backend serves nothing (as the ingress controller logs it), or undefined when it serves. */
function backendProblem(c: KubeCluster, namespace: string, backend: Obj): string | undefined {
  const { name, port } = backend.service as { name: string; port?: { number?: number; name?: string } };
  const service = c.objects.get(c.pathOf('v1', 'Service', name, namespace));
  if (!service) return `Service "${namespace}/${name}" does not exist`;
  const servicePort = ((service.spec?.ports ?? []) as Obj[]).find((p) => (port?.name !== undefined ? p.name === port.name : p.port === port?.number));
  if (!servicePort) return `Service "${namespace}/${name}" does not have any port ${port?.name !== undefined ? `named ${port.name}` : String(port?.number)}`;
  if (!readyEndpoints(c, service, servicePort).length)
    return `Service "${namespace}/${name}" port ${servicePort.name ?? servicePort.port} has no ready endpoints`;
  return undefined;
}

/** The fixture's Ingresses whose backends serve nothing now: each problem names the Ingress and why, so a fix anywhere along the path (the Ingress, the Service or the pods) counts. */
export function ingressBackendProblems(c: KubeCluster, fixtures: readonly KubeObject[]): string[] {
  const out: string[] = [];
  for (const fixture of fixtures.filter((o) => o.kind === 'Ingress')) {
    const namespace = fixture.metadata.namespace ?? 'default';
    const live = c.objects.get(c.pathOf(fixture.apiVersion, 'Ingress', fixture.metadata.name, namespace));
    if (!live) {
      out.push(`Ingress ${namespace}/${fixture.metadata.name} no longer exists`);
      continue;
    }
    for (const backend of backendsOf(live)) {
      const why = backendProblem(c, namespace, backend);
      if (why) out.push(`Ingress ${namespace}/${fixture.metadata.name}: ${why}`);
    }
  }
  return out;
}
