import type { FieldCondition } from '../../domain/evaluation/scenario.js';
import type { KubeCluster, Obj } from './stand-in.js';
import { containerOf, envValue } from './container-env.js';
import { effectiveSecurity } from './behaviour-files.js';

/**
 * The behaviour conditions on ports, probes and protocols (docs/evaluation.md,
 * "Behaviour conditions"): the scenario says what the application serves (the
 * port it listens on, as a number or read from `PORT`; its scheme; the paths
 * that answer) and the sandbox judges the live objects against it, as the
 * kubelet, the endpoints controller and the kernel would. A probe by port
 * number or by port name, a Service's targetPort by number or by name, a
 * port moved on the app's side or on the probe's side all pass when they
 * meet; a removed probe, a process run as root, or a Service that lost its
 * pods fail.
 */

type ListenPort = NonNullable<FieldCondition['binds']>['port'];
type ProbeCondition = NonNullable<FieldCondition['probes']>;
type ServesCondition = NonNullable<FieldCondition['serves']>;

/** The ports below this one need root or CAP_NET_BIND_SERVICE, unless the pod lowers it by sysctl. */
const UNPRIVILEGED_PORT_START = 1024;

/** A port number from a number or a decimal string, undefined when it is neither or out of range. */
function portNumber(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,5}$/.test(v.trim()) ? Number(v) : undefined;
  return n !== undefined && Number.isInteger(n) && n >= 1 && n <= 65535 ? n : undefined;
}

/** The port the process listens on: the number, or what the container reads from the variable (undefined when unset or not a port). */
export function listeningPort(c: KubeCluster, ns: string, podSpec: Obj, port: ListenPort, container: string | undefined): number | undefined {
  if (typeof port === 'number') return port;
  return portNumber(envValue(c, ns, podSpec, port.env, port.container ?? container));
}

/**
 * A probe's or a Service's port as it resolves in a container: a number
 * (or a decimal string) as is, a name through the container's declared
 * ports of that name and protocol (absent: TCP), as the kubelet and the
 * endpoints controller look it up; undefined when no port has that name.
 */
export function resolvePort(ports: Obj[], port: unknown, protocol = 'TCP'): number | undefined {
  const n = portNumber(port);
  if (n !== undefined || typeof port !== 'string') return n;
  return portNumber(ports.find((p) => p.name === port && (p.protocol ?? 'TCP') === protocol)?.containerPort);
}

/** A probe's HTTP path without its query or fragment: what selects the handler (an empty path is `/`). */
const handlerPath = (path: unknown) => (typeof path === 'string' ? path.replace(/[?#].*$/, '') : '') || '/';

/**
 * Whether the container's probe succeeds against what the app serves: an
 * httpGet on the listening port (by number or by the name of one of the
 * container's ports), with the app's scheme, on a path it answers, sent to
 * the pod (no `host`); or a tcpSocket on the listening port (the port
 * accepts connections, which checks the process and nothing behind it). A
 * missing probe fails: the scenario's probe guards something (traffic to
 * pods not ready, a hung process), and removing it hides the next failure
 * instead of fixing this one. An exec or grpc probe runs what the sandbox
 * does not model and fails.
 */
export function probeSucceeds(c: KubeCluster, ns: string, podSpec: Obj, cond: ProbeCondition, defaultContainer?: string): boolean {
  const k = containerOf(podSpec, cond.container ?? defaultContainer);
  const probe: Obj | undefined = k?.[`${cond.probe}Probe`];
  if (!k || !probe) return false;
  const listening = listeningPort(c, ns, podSpec, cond.serves.port, k.name);
  const hits = (port: unknown) => listening !== undefined && resolvePort(k.ports ?? [], port) === listening;
  if (probe.tcpSocket) return !probe.tcpSocket.host && hits(probe.tcpSocket.port);
  const get: Obj | undefined = probe.httpGet;
  if (!get || get.host || !hits(get.port)) return false;
  return (get.scheme ?? 'HTTP') === cond.serves.scheme && cond.serves.paths.includes(handlerPath(get.path));
}

/**
 * Whether the Service reaches the workload's listening port: it selects the
 * workload's pods (a non-empty selector their template labels satisfy) and
 * has a port of the protocol (absent: TCP), the one asked when it names one,
 * whose targetPort (absent: the port itself) resolves in the pods to the
 * port they listen on. A second port of the right protocol beside a wrong
 * one passes, as clients reach it.
 */
export function serviceServes(c: KubeCluster, svc: Obj, cond: ServesCondition): boolean {
  const ns: string = svc.metadata.namespace ?? 'default';
  const workload = c.objects.get(c.pathOf('apps/v1', cond.workload.kind, cond.workload.name, ns));
  const podSpec: Obj | undefined = workload?.spec?.template?.spec;
  const selector = Object.entries((svc.spec?.selector ?? {}) as Record<string, string>);
  const labels = (workload?.spec?.template?.metadata?.labels ?? {}) as Record<string, string>;
  if (!podSpec || svc.spec?.type === 'ExternalName' || !selector.length || !selector.every(([k, v]) => labels[k] === v)) return false;
  const listening = listeningPort(c, ns, podSpec, cond.listens, undefined);
  const declared: Obj[] = ((podSpec.containers ?? []) as Obj[]).flatMap((k) => k.ports ?? []);
  return ((svc.spec?.ports ?? []) as Obj[]).some(
    (p) =>
      (p.protocol ?? 'TCP') === cond.protocol &&
      (cond.port === undefined || p.port === cond.port) &&
      listening !== undefined &&
      resolvePort(declared, p.targetPort ?? p.port, cond.protocol) === listening,
  );
}

/**
 * Whether the process may bind its port without root: the port is at or
 * above the pod's `net.ipv4.ip_unprivileged_port_start` (1024 unless a pod
 * sysctl lowers it), and the container runs as a user other than root and
 * is not privileged. Running as root is the wrong fix; so is adding
 * NET_BIND_SERVICE alone: Kubernetes sets no ambient capabilities, so a
 * capability added to a container that runs as a non-root user does not
 * survive the exec of its process (kubernetes/kubernetes#56374) and the bind
 * is still denied.
 */
export function bindsPort(c: KubeCluster, ns: string, podSpec: Obj, cond: NonNullable<FieldCondition['binds']>, defaultContainer?: string): boolean {
  const container = typeof cond.port === 'number' ? defaultContainer : (cond.port.container ?? defaultContainer);
  const k = containerOf(podSpec, container);
  const port = k && listeningPort(c, ns, podSpec, cond.port, k.name);
  if (!k || port === undefined || !runsAsNonRoot(podSpec, k)) return false;
  return port >= unprivilegedPortStart(podSpec);
}

/**
 * Whether the container runs as a user other than root, by its security
 * context over the pod's: a non-zero runAsUser, or none with runAsNonRoot
 * (the kubelet refuses to start an image whose user is root); a privileged
 * container counts as root. Without either, the image's user decides and the
 * scenario does not know it.
 */
function runsAsNonRoot(podSpec: Obj, k: Obj): boolean {
  if (k.securityContext?.privileged === true) return false;
  const { runAsUser, runAsNonRoot } = effectiveSecurity(podSpec, k);
  if (runAsUser !== undefined) return Number(runAsUser) !== 0;
  return runAsNonRoot === true;
}

/** The first port a non-root process may bind in the pod: the sysctl's value when the pod sets it, else 1024. */
function unprivilegedPortStart(podSpec: Obj): number {
  const sysctl = ((podSpec.securityContext?.sysctls ?? []) as Obj[]).find((s) => s.name === 'net.ipv4.ip_unprivileged_port_start');
  const value = Number(sysctl?.value);
  return sysctl && Number.isInteger(value) && value >= 0 ? value : UNPRIVILEGED_PORT_START;
}
