import { isJsonObject, type JsonObject } from '../json-object.js';
import type { KubeObject } from '../cluster/kube-types.js';
import { checkValue, valuesAt, type ConstraintViolation, type NamedPolicy, type PolicyConstraint } from './policy-constraint.js';
import { formatPath } from '../operations/object-diff.js';
import { findPods } from '../write-guard/pod-shapes.js';

/**
 * Where a built-in pod-bearing kind keeps its pod spec. A constraint written
 * for one of these (or for `*`) on a field under that prefix is a rule about
 * pods, whatever creates them.
 */
export const POD_SPEC_PREFIXES: Readonly<Record<string, string>> = {
  Pod: 'spec.',
  PodTemplate: 'template.spec.',
  Deployment: 'spec.template.spec.',
  StatefulSet: 'spec.template.spec.',
  DaemonSet: 'spec.template.spec.',
  ReplicaSet: 'spec.template.spec.',
  ReplicationController: 'spec.template.spec.',
  Job: 'spec.template.spec.',
  CronJob: 'spec.jobTemplate.spec.template.spec.',
};

/** The three lists a pod's containers live in; a rule on one is a rule on all. */
export const CONTAINER_LISTS = ['containers', 'initContainers', 'ephemeralContainers'] as const;

/** Fields of a PodSpec (k8s.io/api/core/v1): what may follow the prefix for a rule to be about pods. */
const POD_SPEC_FIELDS = new Set([
  ...CONTAINER_LISTS,
  'activeDeadlineSeconds',
  'affinity',
  'automountServiceAccountToken',
  'dnsConfig',
  'dnsPolicy',
  'enableServiceLinks',
  'hostAliases',
  'hostIPC',
  'hostNetwork',
  'hostPID',
  'hostUsers',
  'hostname',
  'imagePullSecrets',
  'nodeName',
  'nodeSelector',
  'os',
  'overhead',
  'preemptionPolicy',
  'priority',
  'priorityClassName',
  'readinessGates',
  'resourceClaims',
  'resources',
  'restartPolicy',
  'runtimeClassName',
  'schedulerName',
  'schedulingGates',
  'securityContext',
  'serviceAccount',
  'serviceAccountName',
  'setHostnameAsFQDN',
  'shareProcessNamespace',
  'subdomain',
  'terminationGracePeriodSeconds',
  'tolerations',
  'topologySpreadConstraints',
  'volumes',
]);

const bare = (segment: string) => (segment.endsWith('[]') ? segment.slice(0, -2) : segment);

/**
 * The part of a constraint's field inside the pod spec (`containers[].image`,
 * `hostNetwork`), when the constraint is about pods: its kind is `*` or a
 * built-in pod-bearing kind and its field starts with that kind's pod-spec
 * prefix followed by a PodSpec field. undefined for any other rule.
 */
export function podSpecField(c: PolicyConstraint): string | undefined {
  const prefixes = c.kind === '*' ? [...new Set(Object.values(POD_SPEC_PREFIXES))] : POD_SPEC_PREFIXES[c.kind] ? [POD_SPEC_PREFIXES[c.kind]] : [];
  for (const prefix of prefixes) {
    if (!c.field.startsWith(prefix)) continue;
    const rest = c.field.slice(prefix.length);
    if (POD_SPEC_FIELDS.has(bare(rest.split('.')[0]))) return rest;
  }
  return undefined;
}

const problemOf = (c: PolicyConstraint, problem: string) => (c.message ? `${c.message} (${problem})` : problem);

/** One pod spec's violations of a pod rule; a rule on any container list is checked on every list, `required` on each container that runs (containers and initContainers: ephemeral debug containers carry no resources, ports or probes). */
function podSpecViolations(spec: JsonObject, specPath: string, rest: string, c: PolicyConstraint): { field: string; problem: string }[] {
  const out: { field: string; problem: string }[] = [];
  const [first, ...tail] = rest.split('.');
  const within = (p: string) => (specPath ? `${specPath}.${p}` : p);
  if (first.endsWith('[]') && (CONTAINER_LISTS as readonly string[]).includes(bare(first))) {
    for (const list of CONTAINER_LISTS) {
      const items = Array.isArray(spec[list]) ? spec[list] : [];
      for (const [i, container] of items.entries()) {
        const name = isJsonObject(container) && typeof container.name === 'string' ? container.name : String(i);
        const field = within(`${list}[${name}]${tail.length ? `.${tail.join('.')}` : ''}`);
        const values = tail.length ? valuesAt(container, tail.join('.')) : [container];
        if (values.length === 0 && c.required && list !== 'ephemeralContainers') out.push({ field, problem: problemOf(c, 'is required') });
        for (const v of values) {
          const problem = checkValue(v, c);
          if (problem) out.push({ field, problem: problemOf(c, problem) });
        }
      }
    }
    return out;
  }
  const values = valuesAt(spec, rest);
  if (values.length === 0 && c.required) out.push({ field: within(rest), problem: problemOf(c, 'is required') });
  for (const v of values) {
    const problem = checkValue(v, c);
    if (problem) out.push({ field: within(rest), problem: problemOf(c, problem) });
  }
  return out;
}

/**
 * The pods an object runs, found by shape (pod-shapes.ts) as pod specs: a
 * pod spec as it is; a container elsewhere (an Argo Workflow's template
 * `container`, a Tekton step) as a pod spec of the pod-level fields around
 * it with those containers.
 */
function podSpecsOf(o: KubeObject): { path: string; spec: JsonObject }[] {
  return findPods(o)
    .filter((p) => !p.loose)
    .map((p) => ({
      path: p.segments.length ? formatPath(p.segments) : '',
      spec: p.podSpec ? p.spec : { ...p.spec, containers: p.containers.map((c) => c.container) },
    }));
}

/**
 * Every violation of `constraints` in `objects`, matched by kind and by what
 * the object runs, never by how a rule happens to be spelled:
 * - a rule about pods (podSpecField: a `*` or built-in pod-bearing kind, a
 *   field under its pod spec) is checked on every pod spec found by shape in
 *   any object: Pods, Deployments, StatefulSets, DaemonSets, ReplicaSets,
 *   Jobs, CronJobs and any custom resource with a pod template (an Argo
 *   Rollout, a Knative Service) or a container elsewhere (an Argo
 *   Workflow's `container`, Tekton `steps`); a rule on `containers[]` covers
 *   `initContainers[]` and `ephemeralContainers[]` too, and `required` holds
 *   for each container, not for one of them;
 * - any other rule applies to objects of its kind (`*`: every kind), at its
 *   path as written.
 */
export function policyViolations(objects: readonly KubeObject[], constraints: readonly PolicyConstraint[]): ConstraintViolation[] {
  const out: ConstraintViolation[] = [];
  for (const o of objects) {
    const name = `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
    const specs = podSpecsOf(o);
    for (const c of constraints) {
      const rest = podSpecField(c);
      if (rest !== undefined && specs.length > 0) {
        for (const s of specs) for (const v of podSpecViolations(s.spec, s.path, rest, c)) out.push({ object: name, ...v });
        continue;
      }
      // a rule about pods does not concern an object that runs none, unless it names that very kind
      if (rest !== undefined ? c.kind !== o.kind : c.kind !== '*' && c.kind !== o.kind) continue;
      const values = valuesAt(o, c.field);
      if (values.length === 0 && c.required) out.push({ object: name, field: c.field, problem: problemOf(c, 'is required') });
      for (const v of values) {
        const problem = checkValue(v, c);
        if (problem) out.push({ object: name, field: c.field, problem: problemOf(c, problem) });
      }
    }
  }
  return out;
}

/**
 * Why `object` (as a write would leave it) breaks a policy, naming the policy
 * and the rule, or undefined when every policy holds. Matched as
 * policyViolations does: by kind, and by what the object runs for rules about
 * pods; policies without a rule that concerns the object are not concerned.
 */
export function policyRefusal(object: KubeObject, policies: readonly NamedPolicy[]): string | undefined {
  const broken: string[] = [];
  for (const p of policies) {
    const violations = policyViolations([object], p.constraints);
    if (violations.length) broken.push(`policy "${p.description.slice(0, 200)}" (${p.id}): ${violations.map((v) => `${v.field} ${v.problem}`).join('; ')}`);
  }
  return broken.length ? `${object.kind} ${object.metadata.name} would break ${broken.join(' and ')}` : undefined;
}
