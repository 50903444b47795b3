import { posix } from 'node:path';
import { selectField } from '../../domain/cluster/field-path.js';
import { valueHolds } from '../../domain/evaluation/field-condition.js';
import { BEHAVIOUR_OPERATORS, type FieldCondition } from '../../domain/evaluation/scenario.js';
import type { KubeCluster, Obj } from './stand-in.js';
import { nodesFitting } from './kube/kube-scheduler.js';
import { bindsPort, probeSucceeds, serviceServes } from './behaviour-probes.js';
import { trafficAllowed } from './behaviour-netpol.js';
import { mayAccess } from './behaviour-rbac.js';
import { filesHold, isFilesCondition } from './behaviour-files.js';
import { podPulls } from './kube/kube-image-pull.js';
import { servesCertificate } from './behaviour-certificates.js';
import { scrapedAt } from './behaviour-scrape.js';
import { sameSchedule } from './behaviour-cron.js';
import { nodeLabelsOf, rollsOutWith, spreadsPods } from './behaviour-ops.js';
import { containerOf, envResolved, sourceData } from './container-env.js';

/**
 * The conditions of a health rule that are judged on the live cluster rather
 * than on one field (docs/evaluation.md, "Behaviour conditions"): what the
 * container sees in an environment variable, whether that value reaches a
 * Service, whether a Service selects a workload's pods, whether the pods fit a
 * Node or can pull their images, whether an Ingress serves a valid certificate
 * (behaviour-certificates.ts). Each accepts every fix with the same effect: a short or a fully
 * qualified Service name, the value from a ConfigMap instead of a literal,
 * relabelled pods instead of a new selector.
 */

/** The default port of a URL scheme, as its clients assume it. */
const SCHEME_PORTS: Record<string, number> = {
  http: 80,
  https: 443,
  postgres: 5432,
  postgresql: 5432,
  redis: 6379,
  rediss: 6379,
  mysql: 3306,
  amqp: 5672,
  mongodb: 27017,
  nats: 4222,
};

const WORKLOAD_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job']);

/** Whether a condition needs the live cluster: it reads an env variable or judges a behaviour. */
export const judgedOnCluster = (cond: FieldCondition) => cond.env !== undefined || BEHAVIOUR_OPERATORS.some((op) => cond[op] !== undefined);

/**
 * Whether a condition that needs the cluster holds. `object` is the object
 * the condition looks at (the workload, with the pod's own template when a
 * pod is judged; the Service for `selects`), undefined when it does not exist.
 */
export function behaviourHolds(c: KubeCluster, cond: FieldCondition, object: Obj | undefined, defaultContainer?: string): boolean {
  if (!object) return cond.exists === false;
  const ns: string = object.metadata.namespace ?? 'default';
  if (cond.selects) return selectsWorkload(c, object, cond.selects);
  if (cond.schedules) return fitsNodes(c, podSpecOf(object), cond.schedules);
  if (cond.rollout) return rollsOutWith(object, cond.rollout);
  if (cond.spreads) return spreadsPods(c, object, cond.spreads);
  if (cond.runs) return runsFile(podSpecOf(object), cond.runs.container ?? defaultContainer, cond.runs.file);
  if (cond.probes) return probeSucceeds(c, ns, podSpecOf(object), cond.probes, defaultContainer);
  if (cond.serves) return serviceServes(c, object, cond.serves);
  if (cond.binds) return bindsPort(c, ns, podSpecOf(object), cond.binds, defaultContainer);
  if (cond.allows || cond.denies) return trafficAllowed(c, object, (cond.allows ?? cond.denies)!) === !!cond.allows;
  if (cond.can || cond.cannot) return mayAccess(c, object, (cond.can ?? cond.cannot)!) === !!cond.can;
  if (isFilesCondition(cond)) return filesHold(c, ns, podSpecOf(object), cond, defaultContainer);
  if (cond.pulls) return podPulls(c, ns, podSpecOf(object));
  if (cond.certificate) return servesCertificate(c, object, cond.certificate, c.nowMs());
  if (cond.scraped) return scrapedAt(object.spec?.template ?? {}, cond.scraped);
  const value = cond.env ? envFrom(c, ns, podSpecOf(object), cond.env, defaultContainer) : fieldValue(object, cond.path);
  if (cond.sameAs) return value !== undefined && value === sourceData(c, ns, cond.sameAs.kind, cond.sameAs.name)?.[cond.sameAs.key];
  if (cond.reaches) return typeof value === 'string' && reachesService(c, value, ns, cond.reaches);
  if (cond.sameSchedule) return typeof value === 'string' && sameSchedule(value, cond.sameSchedule);
  return valueHolds(cond, value);
}

/** The value at a field path of the object (a ConfigMap's `data.DB_HOST`, say); undefined when absent. */
function fieldValue(object: Obj, path: string | undefined): unknown {
  const field = path === undefined ? undefined : selectField(object, path);
  return field?.found ? field.value : undefined;
}

/** The pod spec a workload makes its pods from (a CronJob's through its Job template). */
function podSpecOf(o: Obj): Obj {
  return (o.kind === 'CronJob' ? o.spec?.jobTemplate?.spec?.template?.spec : o.spec?.template?.spec) ?? {};
}

/** The value an `env` condition reads: what the container sees, and with `from` only when it comes through that key. */
function envFrom(c: KubeCluster, ns: string, podSpec: Obj, env: NonNullable<FieldCondition['env']>, defaultContainer?: string): string | undefined {
  const resolved = envResolved(c, ns, podSpec, env.name, env.container ?? defaultContainer);
  const want = env.from;
  if (!resolved || !want) return resolved?.value;
  const source = resolved.source;
  return source && source.kind === want.kind && source.name === want.name && source.key === (want.key ?? env.name) ? resolved.value : undefined;
}

/** A connection string's host and port: `http://catalog.shop:80/x`, `redis://:pw@cache:6379/0`, `postgres.data:5432`, `postgres`. */
export function connectionTarget(value: string): { host: string; port?: number } | undefined {
  const m = /^(?:([a-z][a-z0-9+.-]*):\/\/)?(?:[^@/]*@)?([a-z0-9.-]+?)\.?(?::(\d{1,5}))?(?:[/?#].*)?$/i.exec(value.trim());
  if (!m) return undefined;
  const port = m[3] !== undefined ? Number(m[3]) : m[1] !== undefined ? SCHEME_PORTS[m[1].toLowerCase()] : undefined;
  return { host: m[2].toLowerCase(), ...(port !== undefined ? { port } : {}) };
}

/** The Service a host name finds through cluster DNS from a pod in `ns` (`name`, `name.ns`, `name.ns.svc`, `name.ns.svc.cluster.local`); undefined for any other name. */
export function serviceOfHost(host: string, ns: string): { name: string; namespace: string } | undefined {
  const [name, namespace = ns, ...rest] = host.split('.');
  const suffix = rest.join('.');
  if (host.split('.').length > 1 && !['', 'svc', 'svc.cluster.local'].includes(suffix)) return undefined;
  return { name, namespace };
}

/** Whether a connection string names the Service `to` (from a pod in `ns`) and a port the live Service serves. */
function reachesService(c: KubeCluster, value: string, ns: string, to: NonNullable<FieldCondition['reaches']>): boolean {
  const target = connectionTarget(value);
  const found = target && serviceOfHost(target.host, ns);
  if (!found || found.name !== to.service || found.namespace !== (to.namespace ?? ns)) return false;
  const svc = [...c.objects.values()].find((o) => o.kind === 'Service' && o.metadata.namespace === found.namespace && o.metadata.name === found.name);
  if (!svc) return false;
  const port = target.port ?? to.port;
  return port === undefined || ((svc.spec?.ports ?? []) as Obj[]).some((p) => p.port === port);
}

const templateLabels = (o: Obj) => (o.spec?.template?.metadata?.labels ?? {}) as Record<string, string>;

/** Whether the live Service selects the named workload's pods (and, with `only`, no other workload's in its namespace). */
function selectsWorkload(c: KubeCluster, svc: Obj, target: NonNullable<FieldCondition['selects']>): boolean {
  const selector = Object.entries((svc.spec?.selector ?? {}) as Record<string, string>);
  if (!selector.length) return false;
  const picks = (o: Obj) => selector.every(([k, v]) => templateLabels(o)[k] === v);
  const workloads = [...c.objects.values()].filter((o) => WORKLOAD_KINDS.has(o.kind) && o.metadata.namespace === svc.metadata.namespace);
  const own = workloads.find((o) => o.kind === target.kind && o.metadata.name === target.name);
  if (!own || !picks(own)) return false;
  const isOwnReplicaSet = (o: Obj) => o.kind === 'ReplicaSet' && o.metadata.ownerReferences?.some((r: Obj) => r.uid === own.metadata.uid);
  return !target.only || workloads.every((o) => o === own || isOwnReplicaSet(o) || !picks(o));
}

/**
 * Whether pods of this spec fit at least one Node, only Nodes carrying
 * `nodeLabels`, at least one carrying `someNodeLabels`, and none carrying
 * `avoidsNodeLabels` (a toleration of every taint lets them onto a pool kept
 * for others).
 */
function fitsNodes(c: KubeCluster, podSpec: Obj, want: NonNullable<FieldCondition['schedules']>): boolean {
  const fitting = nodesFitting(c, podSpec, { emptyNodes: true });
  const carries = (labels: Record<string, string> | undefined) => (n: string) => Object.entries(labels ?? {}).every(([k, v]) => nodeLabelsOf(c, n)[k] === v);
  const avoided = want.avoidsNodeLabels && carries(want.avoidsNodeLabels);
  return fitting.length > 0 && fitting.every(carries(want.nodeLabels)) && fitting.some(carries(want.someNodeLabels)) && !(avoided && fitting.some(avoided));
}

/** The directories a container's PATH holds when its image sets no other (the distributions' default). */
const DEFAULT_PATH = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/**
 * Whether the container's command line names `file`: the executable (the
 * first word; without a slash, looked up on the PATH) or an argument after it
 * (an interpreter's script; not a flag), resolved against `workingDir` (`/`
 * when unset). `python /app/run.py`, `python run.py` with workingDir `/app`
 * and a bare `run.py` on the PATH are the same program; a wrapper such as
 * `sh -c "cd /app && ..."` is not read.
 */
export function runsFile(podSpec: Obj, container: string | undefined, file: string): boolean {
  const k = containerOf(podSpec, container);
  if (!k) return false;
  const argv: unknown[] = [...(k.command ?? []), ...(k.args ?? [])];
  const dir = typeof k.workingDir === 'string' && k.workingDir.startsWith('/') ? k.workingDir : '/';
  return argv.some((word, i) => {
    if (typeof word !== 'string' || word === '' || word.startsWith('-')) return false;
    if (i === 0 && !word.includes('/')) return DEFAULT_PATH.some((d) => posix.join(d, word) === file);
    return posix.resolve(dir, word) === file;
  });
}
