/**
 * The simulated scheduler and kubelet of the Kubernetes API stand-in.
 *
 * - `schedulePod`: a new simulated pod is bound at once to the Node it fits
 *   with the fewest pods (`nodesFitting`, kube-scheduler.ts), or to
 *   `kind-worker` when the cluster has no Node objects
 *   (`Scheduled` event from default-scheduler), Pending with its containers
 *   waiting in `ContainerCreating`. A pod that fits no Node stays unbound and
 *   Pending (PodScheduled False, Unschedulable) with a Warning
 *   `FailedScheduling` "0/N nodes are available: ...", tried again each tick.
 * - `kubeletStep` (once per tick, per container), by what the image registry
 *   (`KubeCluster.knownImages`) says:
 *   - unknown image: first `ErrImagePull` (Normal `Pulling`, Warning `Failed`
 *     "Failed to pull image ...: not found" and "Error: ErrImagePull"), then
 *     `ImagePullBackOff` (Normal `BackOff` "Back-off pulling image ...", Warning
 *     `Failed` "Error: ImagePullBackOff", counts rising). The pod stays Pending and
 *     its logs answer 400 "is waiting to start", as the real kubelet does.
 *   - memory limit below the image's need: each tick is one run ended by the OOM
 *     killer: `restartCount` +1, `lastState.terminated` OOMKilled / 137, state
 *     waiting `CrashLoopBackOff`, Warning `BackOff` "Back-off restarting failed
 *     container ..."; the pod is Running but not Ready; current and previous logs
 *     hold the killed run's output.
 *   - otherwise: Pulling, Pulled, Created, Started; running, Ready, with logs.
 *   A pod whose image was unknown starts normally once the image is added.
 *   - an image of a private registry without a pull secret for its host
 *     (kube-image-pull.ts): the same back-off, the registry answering 401,
 *     and a Warning `FailedToRetrieveImagePullSecret` for a named pull secret
 *     that does not exist.
 * - `KubeCluster.containerBehaviour` (the sandbox's scenario rules) may say
 *   more, judged at every step: `crash` (each start exits with its code and
 *   log, CrashLoopBackOff), `notReady` (running, a Warning `Unhealthy` with the
 *   probe's message), `pending` (held Pending with a Warning event; with the
 *   scheduler as component, unbound: PodScheduled False, Unschedulable), `log`
 *   (what the running container prints).
 * - Init containers (`spec.initContainers`) run first, one after another, each
 *   to completion (terminated Completed, exit 0); a failing one (a crash, an
 *   image that cannot be pulled) blocks the pod: it stays Pending, condition
 *   Initialized False, its app containers waiting in `PodInitializing`, the
 *   init container in CrashLoopBackOff (`Init:CrashLoopBackOff` in kubectl).
 * - Pods that run to completion (`restartPolicy` Never or OnFailure, a Job's):
 *   a container that does not crash ends with exit 0 one step after it
 *   started (terminated Completed), the pod Succeeded once all have; a crash
 *   under `Never` ends the pod Failed, under `OnFailure` restarts it in place
 *   (CrashLoopBackOff).
 * - A pod created with a `nodeName` (a DaemonSet's) stays on that node.
 * - A container whose environment names a ConfigMap, Secret or key that does
 *   not exist waits in `CreateContainerConfigError` (kube-container-config.ts).
 */
import { randomBytes } from 'node:crypto';
import { normaliseImage, type KubeCluster, type Obj } from './kube-cluster.js';
import { holdOnConfigError } from './kube-container-config.js';
import { fullReference, imageNeed, missingPullSecrets, pullError } from './kube-image-pull.js';
import { nodesFitting, unschedulableMessage } from './kube-scheduler.js';
const HOST_IP = '172.18.0.2';

/** A quantity (`64Mi`, `1G`, `512k`, `1.5Gi`, bytes) in MiB; undefined when absent or unreadable. */
export function memoryMiB(q: unknown): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|K|M|G|T)?$/.exec(String(q ?? ''));
  if (!m) return undefined;
  const unit: Record<string, number> = { Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4, k: 1e3, K: 1e3, M: 1e6, G: 1e9, T: 1e12 };
  return (Number(m[1]) * (unit[m[2] ?? ''] ?? 1)) / 1024 ** 2;
}

export function podReady(pod: Obj): boolean {
  return pod.status?.conditions?.some((c: Obj) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** The node the scheduler binds a new pod to: among the Nodes it fits, the one running the fewest pods (`kind-worker` when the cluster has no Node objects). */
function pickNode(c: KubeCluster, spec: Obj): string {
  const fitting = nodesFitting(c, spec);
  const load = (n: string) => [...c.objects.values()].filter((o) => o.kind === 'Pod' && o.spec?.nodeName === n).length;
  return fitting.reduce((best, n) => (load(n) < load(best) ? n : best));
}

export function schedulePod(c: KubeCluster, pod: Obj): void {
  const unfit = pod.spec?.nodeName ? undefined : unschedulableMessage(c, pod.spec ?? {});
  if (unfit) {
    c.event(pod, 'Warning', 'FailedScheduling', unfit, 'default-scheduler');
    return markUnscheduled(c, pod, unfit);
  }
  c.update(pod, (p) => {
    p.spec = {
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      schedulerName: 'default-scheduler',
      terminationGracePeriodSeconds: 30,
      ...p.spec,
      nodeName: p.spec?.nodeName ?? pickNode(c, p.spec ?? {}),
    };
    p.status = {
      phase: 'Pending',
      hostIP: HOST_IP,
      hostIPs: [{ ip: HOST_IP }],
      startTime: c.now(),
      qosClass: qosClass(p),
      conditions: conditions(c, p, false, false, !p.spec.initContainers?.length),
      ...(p.spec.initContainers?.length ? { initContainerStatuses: p.spec.initContainers.map((k: Obj) => waitingStatus(k, 'PodInitializing')) } : {}),
      containerStatuses: (p.spec.containers ?? []).map((k: Obj) => waitingStatus(k, p.spec.initContainers?.length ? 'PodInitializing' : 'ContainerCreating')),
    };
  });
  c.event(pod, 'Normal', 'Scheduled', `Successfully assigned ${pod.metadata.namespace}/${pod.metadata.name} to ${pod.spec.nodeName}`, 'default-scheduler');
}

/** A container's status before it starts: waiting for `reason`. */
function waitingStatus(k: Obj, reason: string): Obj {
  return { name: k.name, image: k.image, imageID: '', ready: false, restartCount: 0, started: false, lastState: {}, state: { waiting: { reason } } };
}

/** Whether the pod's containers run to completion (a Job's pods) rather than serve until stopped. */
const runsToCompletion = (pod: Obj) => (pod.spec?.restartPolicy ?? 'Always') !== 'Always';
const completed = (s: Obj | undefined) => s?.state?.terminated?.exitCode === 0;
export const podFinished = (pod: Obj) => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

/** One tick of the kubelet for a simulated pod. */
export function kubeletStep(c: KubeCluster, pod: Obj): void {
  if (!pod.status || podFinished(pod)) return;
  const pending = c.containerBehaviour && (pod.spec.containers ?? []).map((k: Obj) => c.containerBehaviour!(pod, k)?.pending).find(Boolean);
  if (pending) return holdPending(c, pod, pending);
  if (!pod.spec.nodeName) return schedulePod(c, pod);
  c.update(pod, (p) => {
    if (!p.status.podIP) Object.assign(p.status, podIps(c.nextPodIp()));
    const inits: Obj[] = p.spec.initContainers ?? [];
    const initStatuses: Obj[] = p.status.initContainerStatuses ?? [];
    const next = inits.find((k) => !completed(initStatuses.find((s) => s.name === k.name)));
    if (next) {
      const cs = initStatuses.find((s) => s.name === next.name);
      if (cs) stepContainer(c, p, next, cs, 'init');
      const failed = cs?.state?.terminated && cs.state.terminated.exitCode !== 0;
      p.status.phase = failed ? 'Failed' : 'Pending';
      p.status.conditions = conditions(c, p, true, false, false);
      return;
    }
    for (const container of p.spec.containers ?? []) {
      const cs = p.status.containerStatuses.find((s: Obj) => s.name === container.name);
      if (cs) stepContainer(c, p, container, cs, runsToCompletion(p) ? 'job' : 'serve');
    }
    const statuses: Obj[] = p.status.containerStatuses;
    const ran = statuses.every((s) => s.state.running || s.lastState.terminated || s.state.terminated);
    if (runsToCompletion(p) && statuses.every((s) => s.state.terminated)) p.status.phase = statuses.every(completed) ? 'Succeeded' : 'Failed';
    else p.status.phase = ran ? 'Running' : 'Pending';
    p.status.conditions = conditions(
      c,
      p,
      true,
      statuses.every((s) => s.ready),
      true,
    );
  });
}

/**
 * One step of one container. `serve`: runs until stopped, restarted after a
 * crash. `job` (restartPolicy Never or OnFailure): a running one ends Completed;
 * a crash under Never ends it for good. `init`: completes as soon as it ran.
 */
function stepContainer(c: KubeCluster, pod: Obj, container: Obj, cs: Obj, mode: 'serve' | 'job' | 'init' = 'serve'): void {
  const image: string = container.image;
  const field = `spec.${mode === 'init' ? 'initContainers' : 'containers'}{${container.name}}`;
  if (cs.state.terminated) return;
  const namespace: string = pod.metadata.namespace ?? 'default';
  const error = pullError(c, namespace, pod.spec, image);
  const waiting = cs.state.waiting?.reason;
  if (error !== undefined) {
    const missing = missingPullSecrets(c, namespace, pod.spec);
    if (missing.length)
      c.event(
        pod,
        'Warning',
        'FailedToRetrieveImagePullSecret',
        `Unable to retrieve some image pull secrets (${missing.join(', ')}); attempting to pull the image may not succeed.`,
        'kubelet',
      );
    if (waiting === 'ContainerCreating' || waiting === 'PodInitializing') {
      c.event(pod, 'Normal', 'Pulling', `Pulling image "${image}"`, 'kubelet', field);
      c.event(pod, 'Warning', 'Failed', `Failed to pull image "${image}": ${error}`, 'kubelet', field);
      c.event(pod, 'Warning', 'Failed', 'Error: ErrImagePull', 'kubelet', field);
      cs.state = { waiting: { reason: 'ErrImagePull', message: error } };
    } else if (waiting === 'ErrImagePull' || waiting === 'ImagePullBackOff') {
      c.event(pod, 'Normal', 'BackOff', `Back-off pulling image "${image}"`, 'kubelet', field);
      c.event(pod, 'Warning', 'Failed', 'Error: ImagePullBackOff', 'kubelet', field);
      cs.state = { waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${image}"` } };
    }
    return;
  }
  const need = imageNeed(c, image)!;
  if (holdOnConfigError(c, pod, container, cs, field)) return;
  const behaviour = c.containerBehaviour?.(pod, container);
  if (cs.state.running && mode === 'job') {
    const started = cs.state.running.startedAt;
    Object.assign(cs, {
      ready: false,
      started: false,
      state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: started, finishedAt: c.now(), containerID: cs.containerID } },
    });
    return;
  }
  if (cs.state.running) return probeReadiness(c, pod, container, cs, behaviour?.notReady);
  const limit = memoryMiB(container.resources?.limits?.memory);
  const oom = limit !== undefined && limit < need;
  const crash = oom ? { exitCode: 137, reason: 'OOMKilled', log: undefined } : behaviour?.crash;
  if (cs.restartCount === 0 && !cs.lastState.terminated) {
    c.event(pod, 'Normal', 'Pulling', `Pulling image "${image}"`, 'kubelet', field);
    c.event(
      pod,
      'Normal',
      'Pulled',
      `Successfully pulled image "${image}" in 1.204s (1.204s including waiting). Image size: ${need * 1048576} bytes.`,
      'kubelet',
      field,
    );
  } else {
    c.event(pod, 'Normal', 'Pulled', `Container image "${image}" already present on machine`, 'kubelet', field);
  }
  c.event(pod, 'Normal', 'Created', `Created container ${container.name}`, 'kubelet', field);
  c.event(pod, 'Normal', 'Started', `Started container ${container.name}`, 'kubelet', field);
  const key = `${pod.metadata.namespace}/${pod.metadata.name}/${container.name}`;
  const log = crash?.log ?? behaviour?.log ?? runLog(image, oom, c.nowMs());
  const containerID = `containerd://${randomBytes(32).toString('hex')}`;
  Object.assign(cs, {
    image: normaliseImage(image),
    imageID: `${fullReference(image).replace(/:[^:/]+$/, '')}@sha256:${randomBytes(32).toString('hex')}`,
    containerID,
  });
  if (!crash && mode === 'init') {
    Object.assign(cs, {
      ready: true,
      started: false,
      state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: c.now(), finishedAt: c.now(), containerID } },
    });
    c.logs.set(key, log);
    return;
  }
  if (!crash) {
    Object.assign(cs, { state: { running: { startedAt: c.now() } }, ready: true, started: true });
    c.logs.set(key, log);
    return probeReadiness(c, pod, container, cs, behaviour?.notReady);
  }
  if (pod.spec.restartPolicy === 'Never') {
    const terminated = { exitCode: crash.exitCode, reason: crash.reason, startedAt: c.now(), finishedAt: c.now(), containerID };
    Object.assign(cs, { ready: false, started: false, state: { terminated } });
    c.logs.set(key, log);
    return;
  }
  const restarts = cs.restartCount + 1;
  const backoff = Math.min(10 * 2 ** (restarts - 1), 300);
  Object.assign(cs, {
    ready: false,
    started: false,
    restartCount: restarts,
    lastState: { terminated: { exitCode: crash.exitCode, reason: crash.reason, startedAt: c.now(), finishedAt: c.now(), containerID } },
    state: {
      waiting: {
        reason: 'CrashLoopBackOff',
        message: `back-off ${backoff}s restarting failed container=${container.name} pod=${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`,
      },
    },
  });
  c.event(
    pod,
    'Warning',
    'BackOff',
    `Back-off restarting failed container ${container.name} in pod ${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`,
    'kubelet',
    field,
  );
  // a container waiting in CrashLoopBackOff shows its last run, and so does --previous
  c.previousLogs.set(key, log);
  c.logs.set(key, log);
}

/** A running container passes its readiness probe unless told it fails (a Warning `Unhealthy` each step, as the prober reports). */
function probeReadiness(c: KubeCluster, pod: Obj, container: Obj, cs: Obj, failing: { message: string } | undefined): void {
  cs.ready = !failing;
  if (failing) c.event(pod, 'Warning', 'Unhealthy', failing.message, 'kubelet', `spec.containers{${container.name}}`);
}

/** A pod held Pending: unscheduled (PodScheduled False, Unschedulable) when the scheduler says why, else bound but not starting. */
function holdPending(c: KubeCluster, pod: Obj, why: { reason: string; message: string; component: string }): void {
  c.event(pod, 'Warning', why.reason, why.message, why.component);
  if (why.component !== 'default-scheduler' || !pod.spec.nodeName) return;
  markUnscheduled(c, pod, why.message);
}

/** An unbound pod: Pending, PodScheduled False (Unschedulable) with the scheduler's message. */
function markUnscheduled(c: KubeCluster, pod: Obj, message: string): void {
  c.update(pod, (p) => {
    delete p.spec.nodeName;
    const scheduled = { type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: c.now(), reason: 'Unschedulable', message };
    p.status = { phase: 'Pending', qosClass: qosClass(p), conditions: [scheduled] };
  });
}

function podIps(ip: string): Obj {
  return { podIP: ip, podIPs: [{ ip }] };
}

function qosClass(pod: Obj): string {
  const resources = (pod.spec.containers ?? []).map((k: Obj) => k.resources ?? {});
  if (resources.every((r: Obj) => !r.limits && !r.requests)) return 'BestEffort';
  const guaranteed = resources.every((r: Obj) => r.limits?.cpu && r.limits?.memory && (!r.requests || JSON.stringify(r.requests) === JSON.stringify(r.limits)));
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

function conditions(c: KubeCluster, pod: Obj, sandbox: boolean, ready: boolean, initialized = true): Obj[] {
  const old: Obj[] = pod.status?.conditions ?? [];
  const unready = (pod.status?.containerStatuses ?? []).filter((s: Obj) => !s.ready).map((s: Obj) => s.name);
  const uninitialized = (pod.status?.initContainerStatuses ?? []).filter((s: Obj) => !completed(s)).map((s: Obj) => s.name);
  const cond = (type: string, ok: boolean, extra: Obj = {}) => {
    const status = ok ? 'True' : 'False';
    const prev = old.find((o) => o.type === type);
    return { type, status, lastProbeTime: null, lastTransitionTime: prev?.status === status ? prev.lastTransitionTime : c.now(), ...(ok ? {} : extra) };
  };
  const finished = pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
  const notReady = finished ? { reason: 'PodCompleted' } : { reason: 'ContainersNotReady', message: `containers with unready status: [${unready.join(' ')}]` };
  return [
    cond('PodReadyToStartContainers', sandbox),
    cond('Initialized', initialized, { reason: 'ContainersNotInitialized', message: `containers with incomplete status: [${uninitialized.join(' ')}]` }),
    cond('Ready', ready, notReady),
    cond('ContainersReady', ready, notReady),
    cond('PodScheduled', true),
  ];
}

/** What a process of that image prints before it serves, or before the OOM killer ends it. */
function runLog(image: string, oom: boolean, ms: number): string {
  const d = new Date(ms).toISOString();
  const app = normaliseImage(image).split('/').at(-1)!.split(':')[0];
  const lines: string[] = [];
  if (app === 'nginx') {
    lines.push(
      '/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration',
      '/docker-entrypoint.sh: Configuration complete; ready for start up',
    );
    const t = `${d.slice(0, 10).replace(/-/g, '/')} ${d.slice(11, 19)}`;
    lines.push(
      `${t} [notice] 1#1: using the "epoll" event method`,
      `${t} [notice] 1#1: start worker processes`,
      ...(oom ? [`${t} [notice] 1#1: start worker process 29`] : []),
    );
  } else if (app === 'redis') {
    const t = `${d.slice(8, 10)} ${new Date(ms).toUTCString().slice(8, 11)} ${d.slice(0, 4)} ${d.slice(11, 23)}`;
    lines.push(`1:C ${t} * oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo`, `1:M ${t} * Server initialized`);
    lines.push(oom ? `1:M ${t} * Loading RDB produced by version 7.2.5` : `1:M ${t} * Ready to accept connections tcp`);
  } else if (app === 'postgres') {
    const t = `${d.slice(0, 10)} ${d.slice(11, 23)} UTC [1]`;
    lines.push(
      `${t} LOG:  starting PostgreSQL 16.4 (Debian 16.4-1.pgdg120+1) on x86_64-pc-linux-gnu`,
      `${t} LOG:  listening on IPv4 address "0.0.0.0", port 5432`,
    );
    lines.push(
      oom
        ? `${t} LOG:  database system was interrupted; last known up at ${d.slice(0, 10)} ${d.slice(11, 19)} UTC`
        : `${t} LOG:  database system is ready to accept connections`,
    );
  } else {
    lines.push(`${d} INFO starting ${image}`, oom ? `${d} INFO loading working set into memory` : `${d} INFO listening on 0.0.0.0:8080`);
  }
  return lines.map((l) => `${l}\n`).join('');
}
