import type { KubeObject, ResourceRef } from './kube-types.js';
import { rolloutStatus } from './rollout-status.js';
import { asJsonObject } from '../json-object.js';

/**
 * The deterministic verdict on a change: is each workload it touched as
 * healthy as before, worse, or can svc not tell? Judged from a snapshot taken
 * before the write and observations after it, never from a model's words.
 */
export type Health = 'healthy' | 'degraded' | 'unknown';
export const HEALTH_VALUES = ['healthy', 'degraded', 'unknown'] as const;

/** Waiting (or last-terminated) reasons of a container that is failing, not starting. */
export const FAILING_REASONS: ReadonlySet<string> = new Set(['CrashLoopBackOff', 'ImagePullBackOff', 'CreateContainerConfigError', 'OOMKilled']);

/** Kinds whose pods svc watches: the rollout, the replicas, the containers and the events. */
export const POD_BEARING_KINDS: ReadonlySet<string> = new Set(['Deployment', 'StatefulSet', 'DaemonSet']);

/** One container of one pod of the workload, as read. */
export interface ContainerObservation {
  pod: string;
  container: string;
  restarts: number;
  /** state.waiting.reason */
  waiting?: string;
  /** lastState.terminated.reason (OOMKilled) */
  lastTerminated?: string;
}

/** One Warning event on the object, its ReplicaSets or its pods. */
export interface WarningObservation {
  /** `Pod web-5d8f-abcde`, `Deployment web`. */
  object: string;
  reason: string;
  message: string;
  count: number;
}

/** What svc read of one object at one moment. */
export interface WorkloadObservation {
  /** null: the object does not exist. */
  object: KubeObject | null;
  containers: ContainerObservation[];
  warnings: WarningObservation[];
  /** A Service's ready endpoint addresses; undefined when not read. */
  endpoints?: number;
  /** Set when the object could not be read (then the rest is empty). */
  error?: string;
}

export interface WorkloadJudgement {
  target: ResourceRef;
  health: Health;
  /** Why, in words a person can act on. */
  evidence: string[];
  /** true: waiting longer cannot change the verdict (a degraded workload is final at once). */
  final: boolean;
}

const MAX_WARNINGS = 5;
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const keyOf = (c: ContainerObservation) => `${c.pod}/${c.container}`;
const warningKey = (w: WarningObservation) => `${w.object}|${w.reason}|${w.message}`;
const failing = (c: ContainerObservation | undefined) =>
  c !== undefined && ((c.waiting !== undefined && FAILING_REASONS.has(c.waiting)) || c.lastTerminated === 'OOMKilled');

/** Whether svc judges this object's health at all (a ConfigMap has none to read). */
export function judgeable(kind: string, object: KubeObject | null): boolean {
  if (POD_BEARING_KINDS.has(kind) || kind === 'Service') return true;
  return Array.isArray(asJsonObject(object?.status).conditions);
}

/**
 * One object after the change against the same object before it.
 * `windowOver`: the last observation of the settle window (a rollout still
 * running then is judged on its replicas, not waited for).
 */
export function judgeWorkload(
  target: ResourceRef,
  before: WorkloadObservation | undefined,
  after: WorkloadObservation,
  windowOver: boolean,
): WorkloadJudgement {
  const judged = (health: Health, evidence: string[], final = health === 'degraded'): WorkloadJudgement => ({ target, health, evidence, final });
  if (after.error !== undefined) return judged('unknown', [`could not be read: ${after.error}`]);
  if (!after.object) return judged('unknown', ['the object does not exist (deleted since?)']);
  if (POD_BEARING_KINDS.has(target.kind)) return judgePodBearing(target, before, after, after.object, windowOver);
  if (target.kind === 'Service') return judgeService(target, before, after, after.object);
  return judgeConditions(target, before?.object ?? null, after.object, windowOver);
}

function judgePodBearing(
  target: ResourceRef,
  before: WorkloadObservation | undefined,
  after: WorkloadObservation,
  object: KubeObject,
  windowOver: boolean,
): WorkloadJudgement {
  const degraded: string[] = [];
  const rollout = rolloutStatus(object);
  if (rollout.failed) degraded.push(rollout.message);
  degraded.push(...containerEvidence(before?.containers ?? [], after.containers));
  // Warnings of the controller (FailedCreate, quota) always count; those of pods while the workload is not all there (probe noise of a healthy start does not)
  const ownKinds = new Set([target.kind, 'ReplicaSet', 'ControllerRevision']);
  const warnings = newWarnings(before, after).filter((w) => ownKinds.has(w.object.split(' ')[0]) || !rollout.done);
  degraded.push(
    ...warnings.slice(0, MAX_WARNINGS).map((w) => `Warning ${w.reason} on ${w.object}: ${w.message.slice(0, 300)}${w.count > 1 ? ` (x${w.count})` : ''}`),
  );
  if (warnings.length > MAX_WARNINGS) degraded.push(`and ${warnings.length - MAX_WARNINGS} more new Warning events`);
  if (degraded.length) return { target, health: 'degraded', evidence: degraded, final: true };
  if (rollout.done) return { target, health: 'healthy', evidence: [rollout.message], final: false };
  const [had, has] = [availableOf(before?.object ?? null), availableOf(object)];
  if (windowOver && had !== undefined && has !== undefined && has < had)
    return { target, health: 'degraded', evidence: [`${has} replicas available, ${had} before the change (${rollout.message})`], final: true };
  return { target, health: 'unknown', evidence: [`not rolled out yet: ${rollout.message}`], final: false };
}

/** Containers failing now that were not before: a new pod failing, or a pod that was fine now restarting or failing. */
function containerEvidence(before: ContainerObservation[], after: ContainerObservation[]): string[] {
  const was = new Map(before.map((c) => [keyOf(c), c]));
  const out: string[] = [];
  for (const c of after) {
    const b = was.get(keyOf(c));
    if (failing(b)) continue; // failing before already: not worse
    const restarts = c.restarts - (b?.restarts ?? 0);
    if (c.waiting !== undefined && FAILING_REASONS.has(c.waiting))
      out.push(`container ${c.container} of pod ${c.pod} is waiting in ${c.waiting}${restarts > 0 ? ` (${restarts} restarts)` : ''}`);
    else if (c.lastTerminated === 'OOMKilled' && restarts > 0) out.push(`container ${c.container} of pod ${c.pod} was OOMKilled (${restarts} restarts)`);
    else if (restarts > 0) out.push(`container ${c.container} of pod ${c.pod} restarted ${restarts} time(s) since the change`);
  }
  return out;
}

/** Warning events that appeared, or repeated, since the snapshot; not those of a pod that was already failing. */
function newWarnings(before: WorkloadObservation | undefined, after: WorkloadObservation): WarningObservation[] {
  const seen = new Map((before?.warnings ?? []).map((w) => [warningKey(w), w.count]));
  const failingPods = new Set((before?.containers ?? []).filter(failing).map((c) => `Pod ${c.pod}`));
  return after.warnings.filter((w) => !failingPods.has(w.object) && w.count > (seen.get(warningKey(w)) ?? 0));
}

function availableOf(o: KubeObject | null): number | undefined {
  if (!o) return undefined;
  const s = asJsonObject(o.status);
  if (o.kind === 'DaemonSet') return num(s.numberAvailable);
  return o.kind === 'Deployment' ? num(s.availableReplicas) : num(s.readyReplicas);
}

function judgeService(target: ResourceRef, before: WorkloadObservation | undefined, after: WorkloadObservation, object: KubeObject): WorkloadJudgement {
  const spec = asJsonObject(object.spec);
  if (spec.type === 'ExternalName' || Object.keys(asJsonObject(spec.selector)).length === 0)
    return { target, health: 'healthy', evidence: ['no selector: its endpoints are not managed from pods'], final: false };
  if (after.endpoints === undefined) return { target, health: 'unknown', evidence: ['its endpoints could not be read'], final: false };
  if (after.endpoints > 0) return { target, health: 'healthy', evidence: [`${after.endpoints} ready endpoint(s)`], final: false };
  const had = before?.endpoints ?? 0;
  if (had > 0) return { target, health: 'degraded', evidence: [`no ready endpoints, ${had} before the change`], final: true };
  return { target, health: 'unknown', evidence: ['no ready endpoints (none before the change either)'], final: false };
}

/** A custom resource with conditions: Ready (or Available) False now, True before (or, created, still False when the window ends), is worse. */
function judgeConditions(target: ResourceRef, before: KubeObject | null, after: KubeObject, windowOver: boolean): WorkloadJudgement {
  const ready = (o: KubeObject | null) => {
    const conditions = (Array.isArray(asJsonObject(o?.status).conditions) ? (asJsonObject(o?.status).conditions as unknown[]) : []).map(asJsonObject);
    return conditions.find((c) => c.type === 'Ready') ?? conditions.find((c) => c.type === 'Available');
  };
  const now = ready(after);
  if (!now) return { target, health: 'unknown', evidence: ['no Ready or Available condition to read'], final: false };
  const said = `${String(now.type)} ${String(now.status)}${typeof now.reason === 'string' ? ` (${now.reason})` : ''}`;
  if (now.status === 'True') return { target, health: 'healthy', evidence: [said], final: false };
  const was = ready(before);
  // a new object may start False while its controller works: only at the end of the window is that a failure
  if (now.status === 'False' && ((before === null && windowOver) || was?.status === 'True'))
    return { target, health: 'degraded', evidence: [`${said}${typeof now.message === 'string' ? `: ${now.message.slice(0, 300)}` : ''}`], final: true };
  return { target, health: 'unknown', evidence: [said], final: false };
}

/** The verdict of the whole execution: degraded when any object is, else unknown when any is, else healthy (nothing judged: unknown). */
export function overallHealth(judgements: readonly Pick<WorkloadJudgement, 'health'>[]): Health {
  if (judgements.some((j) => j.health === 'degraded')) return 'degraded';
  if (judgements.length === 0 || judgements.some((j) => j.health === 'unknown')) return 'unknown';
  return 'healthy';
}
