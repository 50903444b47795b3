/**
 * The state behind the Kubernetes API stand-in (`KubeApiServer` extends this
 * class) and the clock its simulated controllers run on.
 *
 * - `objects`: every stored object by API path (`/apis/apps/v1/namespaces/x/deployments/web`);
 *   tests may read and mutate it directly. `logs` / `previousLogs`: container
 *   logs by `<namespace>/<pod>/<container>`.
 * - `put(obj)`: a fixture stored verbatim "as if created earlier"; the
 *   controllers leave it alone. `create(obj)`: as if a client created it
 *   through the API; the controllers act on it at once. Objects written through
 *   the API (apply, merge patch) and everything the controllers create are
 *   simulated too.
 * - `knownImages`: the image registry, image -> memory the process needs in MiB
 *   (`server.knownImages.set('ghcr.io/acme/api:2', 128)`). An image missing from
 *   it cannot be pulled (ImagePullBackOff); a memory limit below its need is
 *   OOMKilled on every start (CrashLoopBackOff). `docker.io/library/` and a
 *   missing `:latest` tag are normalised away. `privateRegistries`: hosts
 *   whose images need a pull secret naming the host (ErrImagePull, 401, without one).
 * - `tick(n)`: n steps of the simulated clock (`tickSeconds`, default 10 s each):
 *   the kubelet advances every pod (start, pull back-off, one OOM restart), then
 *   the controllers run (a rolling update moves one pod per tick). With
 *   `autoTick` (default on) every GET of a Deployment, ReplicaSet, StatefulSet, DaemonSet, Job or
 *   Pod, single or list, is one tick, so `waitFor` polling sees progress.
 * - `settle(max)`: ticks until pods and replica counts stop changing (a finished
 *   or stuck rollout); returns the ticks it took.
 * - `reconcile()`: runs the controllers without advancing the clock; every
 *   write through the API does this after answering.
 * - `admissionWarnings`: an admission webhook's `Warning`s on writes.
 * - On demand (svc's verdict after a write, docs/verify.md): `restartContainers`
 *   (each container of the matching pods ends once and restarts, as the kubelet
 *   reports it) and `warn` (a Warning event on any object, as a controller emits it).
 *   A Deployment whose image cannot be pulled fails its rollout by itself:
 *   Progressing False `ProgressDeadlineExceeded` once `progressDeadlineSeconds` pass.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { reconcileDeployments, updateDeploymentStatuses } from './kube-deployments.js';
import { RESOURCES } from './kube-fixtures.js';
import { kubeletStep, podReady, schedulePod } from './kube-pods.js';
import { collectGarbage, reconcileReplicaSets } from './kube-replicasets.js';
import { bindClaim, reconcileStatefulSets } from './kube-statefulsets.js';
import { jobsBackingOff, reconcileJobs } from './kube-jobs.js';
import { reconcileDaemonSets } from './kube-daemonsets.js';
import { reconcilePdbs } from './kube-pdbs.js';
import { reconcileQuotas } from './kube-quotas.js';

/**
 * An object as the stand-in stores and serves it: the API server's JSON of
 * any kind, read and written field by field by the simulated controllers
 * (the one deliberate `any` of the product: the stand-in is a dynamic JSON
 * model, and every value it serves is checked by the client it serves).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Obj = Record<string, any>;

/** Images the stand-in's registry has by default, with the memory they need (MiB). */
export const DEFAULT_IMAGES: ReadonlyArray<[string, number]> = [
  ['nginx:1.25', 24],
  ['nginx:1.27', 24],
  ['nginx:latest', 24],
  ['httpd:2.4', 32],
  ['busybox:1.36', 4],
  ['redis:7', 64],
  ['memcached:1.6', 64],
  ['postgres:16', 192],
  ['mysql:8.4', 384],
];

export function normaliseImage(image: string): string {
  const name = image.replace(/^docker\.io\//, '').replace(/^library\//, '');
  return /[:@][^/]*$/.test(name) ? name : `${name}:latest`;
}

/** JSON with sorted keys: equal objects give equal text whatever their key order. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Obj)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

const SAFE = 'bcdfghjklmnpqrstvwxz2456789';
/** Like apimachinery's rand.String: what generateName and pod-template-hash look like. */
export const randomSuffix = (n = 5) => [...randomBytes(n)].map((b) => SAFE[b % SAFE.length]).join('');
/** Like the deployment controller's ComputeHash + SafeEncodeString. */
export const safeHash = (v: unknown) =>
  [...String(createHash('sha256').update(canonical(v)).digest().readUInt32BE(0))].map((ch) => SAFE[ch.charCodeAt(0) % SAFE.length]).join('');

/**
 * A container's behaviour set from outside the simulation: `log` is what it
 * prints when it runs; `crash` ends every run (CrashLoopBackOff); `notReady`
 * keeps it running but failing its readiness probe; `pending` keeps its pod
 * Pending with a Warning event (unschedulable, a volume that cannot mount).
 */
export interface ContainerBehaviour {
  log?: string;
  crash?: { exitCode: number; reason: string; log: string };
  notReady?: { message: string };
  pending?: { reason: string; message: string; component: string };
}

export class KubeCluster {
  readonly objects = new Map<string, Obj>();
  readonly logs = new Map<string, string>();
  readonly previousLogs = new Map<string, string>();
  readonly knownImages = new Map<string, number>(DEFAULT_IMAGES);
  /** Registry hosts (`registry.example`, `host:5000`) whose images a pod pulls only with a pull secret for the host (kube-image-pull.ts). */
  readonly privateRegistries = new Set<string>();
  tickSeconds = 10;
  autoTick = true;
  /**
   * Time follows the wall clock (the sandbox, for kubectl's ages): instead of
   * one tick per read, each request first runs the ticks the wall clock has
   * moved past (`catchUp`), so the simulated clock never runs ahead of it.
   */
  wallClock = false;
  /**
   * A validating admission webhook's warnings (`AdmissionResponse.warnings`):
   * what it says about an apply or patch about to be stored, or dry-run
   * (`dryRun`: a webhook with `sideEffects: None` sees dry runs too, and may
   * answer them differently). The server adds them to its `Warning` headers.
   */
  admissionWarnings?: (object: Obj, dryRun: boolean) => string[];
  /**
   * What a container does beyond the registry's pull and memory rules (the
   * sandbox's scenario rules, kube-pods.ts): asked each kubelet step.
   */
  containerBehaviour?: (pod: Obj, container: Obj) => ContainerBehaviour | undefined;
  /** The `<5 chars>` of a generated pod name (generateName); the sandbox makes it deterministic. */
  nameSuffix: () => string = () => randomSuffix();
  private clockMs = Math.floor(Date.now() / 1000) * 1000;
  private revision = 0;
  private podIps = 0;
  private readonly simulated = new Set<string>();
  private readonly eventKeys = new Map<string, string>();

  /** The simulated clock as Kubernetes writes times (`2026-01-01T00:00:00Z`). */
  now(): string {
    return new Date(this.clockMs).toISOString().replace(/\.\d+Z$/, 'Z');
  }

  nowMs(): number {
    return this.clockMs;
  }

  /** Sets the simulated clock (the sandbox starts it in the past, so settling ends at about the wall clock). */
  setClock(ms: number): void {
    this.clockMs = ms;
  }

  /** With `wallClock`: the ticks the wall clock has moved past (at most 120; older time is skipped). */
  catchUp(): void {
    const step = this.tickSeconds * 1000;
    let n = Math.floor((Date.now() - this.clockMs) / step);
    if (n > 120) {
      this.clockMs = Date.now() - 120 * step;
      n = 120;
    }
    if (n > 0) this.tick(n);
  }

  /** The latest resourceVersion handed out (what a list answers as its own). */
  currentVersion(): string {
    return String(this.revision);
  }

  nextResourceVersion(): string {
    return String(++this.revision);
  }

  nextPodIp(): string {
    return `10.244.0.${++this.podIps}`;
  }

  /** Stores a fixture verbatim, as if created earlier; the controllers leave it alone. Returns its path. */
  put(obj: Obj): string {
    const p = this.pathOf(obj.apiVersion, obj.kind, obj.metadata.name, obj.metadata.namespace ?? 'default');
    this.objects.set(p, { ...obj, metadata: { uid: randomUUID(), resourceVersion: '1', creationTimestamp: '2026-01-01T00:00:00Z', ...obj.metadata } });
    return p;
  }

  /** Stores an object as a client's create would (uid, resourceVersion, generation 1; no server defaults), marks it simulated and reconciles. Returns it. */
  create(obj: Obj): Obj {
    const stored = this.insert(obj);
    this.reconcile();
    return stored;
  }

  /** Stores a new simulated object without reconciling (what controllers call). */
  insert(obj: Obj): Obj {
    const generation = obj.spec && obj.kind !== 'Pod' ? { generation: 1 } : {};
    const metadata = {
      namespace: 'default',
      ...obj.metadata,
      uid: randomUUID(),
      resourceVersion: this.nextResourceVersion(),
      ...generation,
      creationTimestamp: this.now(),
    };
    const stored = { ...obj, metadata };
    if (!RESOURCES[obj.apiVersion]?.find((r) => r.kind === obj.kind)?.namespaced) delete metadata.namespace;
    this.objects.set(this.pathFor(stored), stored);
    this.simulated.add(metadata.uid);
    return stored;
  }

  /** Marks an object written through the API as one the controllers act on. */
  simulate(obj: Obj): void {
    this.simulated.add(obj.metadata.uid);
  }

  isSimulated(obj: Obj): boolean {
    return this.simulated.has(obj.metadata?.uid);
  }

  /** Applies `change` to a stored object in place; bumps resourceVersion only when something changed. */
  update(obj: Obj, change: (o: Obj) => void): void {
    const before = canonical(obj);
    change(obj);
    if (canonical(obj) !== before) obj.metadata.resourceVersion = this.nextResourceVersion();
  }

  remove(obj: Obj): void {
    this.objects.delete(this.pathFor(obj));
    this.simulated.delete(obj.metadata.uid);
  }

  /** Simulated objects of a kind, in creation order. */
  all(kind: string): Obj[] {
    return [...this.objects.values()].filter((o) => o.kind === kind && this.isSimulated(o));
  }

  /** Objects of a kind whose controller owner is `owner`. */
  owned(owner: Obj, kind: string): Obj[] {
    return [...this.objects.values()].filter((o) => o.kind === kind && o.metadata.ownerReferences?.some((r: Obj) => r.uid === owner.metadata.uid));
  }

  uidExists(uid: string): boolean {
    return [...this.objects.values()].some((o) => o.metadata.uid === uid);
  }

  /** Records an event the way client-go's recorder does: a repeat raises `count` and `lastTimestamp`. */
  event(involved: Obj, type: 'Normal' | 'Warning', reason: string, message: string, component = 'kubelet', fieldPath?: string): void {
    const ns = involved.metadata.namespace ?? 'default';
    const key = `${involved.metadata.uid}|${type}|${reason}|${message}`;
    const existing = this.objects.get(this.eventKeys.get(key) ?? '');
    if (existing) {
      this.update(existing, (e) => {
        e.count += 1;
        e.lastTimestamp = this.now();
      });
      return;
    }
    const name = `${involved.metadata.name}.${randomBytes(8).toString('hex')}`;
    const host = component === 'kubelet' ? { host: 'kind-worker' } : {};
    this.insert({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace: ns },
      involvedObject: {
        kind: involved.kind,
        namespace: ns,
        name: involved.metadata.name,
        uid: involved.metadata.uid,
        apiVersion: involved.apiVersion,
        resourceVersion: involved.metadata.resourceVersion,
        ...(fieldPath ? { fieldPath } : {}),
      },
      reason,
      message,
      source: { component, ...host },
      firstTimestamp: this.now(),
      lastTimestamp: this.now(),
      count: 1,
      type,
      eventTime: null,
      reportingComponent: component,
      reportingInstance: component === 'kubelet' ? 'kind-worker' : '',
    });
    this.eventKeys.set(key, this.pathOf('v1', 'Event', name, ns));
  }

  /**
   * On demand: every container of the pods in `namespace` whose name starts
   * with `prefix` ends once (lastState.terminated `reason`, exit code 1) and is
   * restarted: restartCount +1, waiting in CrashLoopBackOff, not ready, with
   * the kubelet's Warning `BackOff`. Answers how many containers restarted.
   */
  restartContainers(namespace: string, prefix: string, reason = 'Error'): number {
    let n = 0;
    for (const pod of this.all('Pod').filter((p) => p.metadata.namespace === namespace && p.metadata.name.startsWith(prefix))) {
      this.update(pod, (p) => {
        for (const cs of p.status?.containerStatuses ?? []) {
          n += 1;
          cs.restartCount = (cs.restartCount ?? 0) + 1;
          cs.lastState = { terminated: { exitCode: 1, reason, startedAt: this.now(), finishedAt: this.now() } };
          cs.state = { waiting: { reason: 'CrashLoopBackOff', message: `back-off 10s restarting failed container=${cs.name} pod=${p.metadata.name}` } };
          cs.ready = false;
        }
      });
      for (const cs of pod.status?.containerStatuses ?? [])
        this.event(pod, 'Warning', 'BackOff', `Back-off restarting failed container ${cs.name} in pod ${pod.metadata.name}`, 'kubelet');
    }
    return n;
  }

  /** On demand: a Warning event on the object at `path` (as its controller would emit one). */
  warn(path: string, reason: string, message: string, component = 'deployment-controller'): void {
    const o = this.objects.get(path);
    if (!o) throw new Error(`no object at ${path}`);
    this.event(o, 'Warning', reason, message, component);
  }

  /** Runs the controllers to a fixed point without advancing the clock. */
  reconcile(): void {
    this.runControllers(false);
  }

  /** `n` steps of the simulated clock: kubelet first, then the controllers with one rollout step. */
  tick(n = 1): void {
    for (let i = 0; i < n; i++) {
      this.clockMs += this.tickSeconds * 1000;
      for (const pod of this.all('Pod')) kubeletStep(this, pod);
      this.runControllers(true);
    }
  }

  /** Ticks until pods and replica counts stay the same for two ticks, and no Job waits out a back-off (at most `maxTicks`); returns the ticks taken. */
  settle(maxTicks = 100): number {
    let last = '';
    let same = 0;
    for (let i = 1; i <= maxTicks; i++) {
      this.tick();
      const shape = canonical(
        [...this.objects.values()]
          .filter((o) => this.isSimulated(o) && o.kind !== 'Event')
          .map((o) => [o.metadata.name, o.spec?.replicas, o.kind === 'Pod' ? [podReady(o), o.status?.phase] : null]),
      );
      // a Job waiting out its back-off before its next pod is not settled
      if (jobsBackingOff(this)) last = '';
      same = shape === last ? same + 1 : 0;
      last = shape;
      if (same >= 2) return i;
    }
    return maxTicks;
  }

  private runControllers(rolloutStep: boolean): void {
    collectGarbage(this);
    reconcileDeployments(this, rolloutStep);
    reconcileReplicaSets(this);
    reconcileStatefulSets(this, rolloutStep);
    reconcileDaemonSets(this, rolloutStep);
    reconcileJobs(this);
    for (const pod of this.all('Pod')) if (!pod.status) schedulePod(this, pod);
    for (const pvc of this.all('PersistentVolumeClaim')) if (!pvc.status?.phase || pvc.status.phase === 'Pending') bindClaim(this, pvc);
    updateDeploymentStatuses(this);
    reconcilePdbs(this);
    reconcileQuotas(this);
  }

  pathOf(apiVersion: string, kind: string, name: string, namespace = 'default'): string {
    const r = RESOURCES[apiVersion].find((x) => x.kind === kind && !x.name.includes('/'))!;
    const prefix = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    return `${prefix}${r.namespaced ? `/namespaces/${namespace}` : ''}/${r.name}/${name}`;
  }

  pathFor(obj: Obj): string {
    return this.pathOf(obj.apiVersion, obj.kind, obj.metadata.name, obj.metadata.namespace ?? 'default');
  }
}
