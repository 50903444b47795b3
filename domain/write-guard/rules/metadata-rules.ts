import { SOLUTION_LABEL } from '../../deployment/manifest-labels.js';
import { fixed, verdict, type FieldRule, type RuleInput } from './field-rule.js';

export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** Keys whose meaning svc knows and that only describe (no controller acts on them; svc's own solution label among them): low on an object, medium on a pod template. */
const DESCRIPTIVE = [
  /^app\.kubernetes\.io\/[^/]+$/,
  /^helm\.sh\/chart$/,
  /^meta\.helm\.sh\/release-(name|namespace)$/,
  /^kubernetes\.io\/(change-cause|description)$/,
  /^prometheus\.io\/(scrape|port|path|scheme)$/,
];
/** What `kubectl rollout restart` sets: a new value replaces the pods. */
export const RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt';

/**
 * How svc reads a label or annotation key: `plain` (no prefix: the
 * object's own; or a descriptive one it knows), `restart`, or `unknown` (a
 * prefix names a controller, webhook or Kubernetes itself, which may act on
 * it: svc does not know what it does).
 */
export function metadataKey(key: string): 'plain' | 'restart' | 'unknown' {
  if (key === RESTARTED_AT) return 'restart';
  if (!key.includes('/') || key === SOLUTION_LABEL || DESCRIPTIVE.some((r) => r.test(key))) return 'plain';
  return 'unknown';
}

const keyOf = (i: RuleInput) => i.path[2] ?? '';
const unknownKey = (i: RuleInput, what: string) =>
  verdict('high', `svc does not know what ${what} ${keyOf(i)} does on a ${i.kind} (a controller or webhook may act on it)`);

function labelOrAnnotation(what: 'label' | 'annotation') {
  return (i: RuleInput) => {
    const key = metadataKey(keyOf(i));
    return key === 'unknown' ? unknownKey(i, what) : verdict('low');
  };
}

/**
 * Rules for every kind's metadata. What keeps or removes an object
 * (finalizers, ownerReferences) and what the next `kubectl apply` acts on
 * (the last-applied annotation) are high wherever they are, also on a kind
 * SVC_KIND_RISK rates lower.
 */
export const METADATA_RULES: FieldRule[] = [
  {
    id: 'meta.owners',
    area: 'Every kind',
    scope: 'any',
    paths: ['metadata.finalizers.**', 'metadata.ownerReferences.**'],
    safe: 'none: what keeps or removes the object',
    judge: (i) => verdict('high', `changes ${i.path.slice(0, 2).join('.')} (what keeps or removes the object)`),
  },
  {
    id: 'meta.identity',
    area: 'Every kind',
    scope: 'any',
    paths: ['apiVersion', 'kind', 'metadata.name', 'metadata.namespace', 'metadata.generateName'],
    safe: 'set when the object is created: low',
    judge: (i) => (i.created ? verdict('low') : fixed('high', 'renames or retypes the object')(i)),
  },
  {
    id: 'meta.labels',
    area: 'Every kind',
    scope: 'any',
    paths: ['metadata.labels.*'],
    safe: `a key without a prefix, app.kubernetes.io/*, helm.sh/chart, ${SOLUTION_LABEL}: low; a key with another prefix: high (a controller may act on it)`,
    judge: labelOrAnnotation('label'),
  },
  {
    id: 'meta.annotations',
    area: 'Every kind',
    scope: 'any',
    paths: ['metadata.annotations.*'],
    safe: `a key without a prefix, app.kubernetes.io/*, meta.helm.sh/release-*, kubernetes.io/change-cause or description, prometheus.io/scrape, port, path or scheme, ${RESTARTED_AT}: low; ${LAST_APPLIED} (what the next kubectl apply acts on) and any other prefix: high`,
    judge: (i) =>
      keyOf(i) === LAST_APPLIED
        ? verdict('high', `changes the ${LAST_APPLIED} annotation (what the next kubectl apply will act on)`)
        : metadataKey(keyOf(i)) === 'restart'
          ? verdict('low')
          : labelOrAnnotation('annotation')(i),
  },
  {
    id: 'meta.host-access',
    area: 'Every kind',
    scope: 'any',
    paths: ['**.{hostNetwork,hostPID,hostIPC,privileged,hostProcess}', '**.hostPath.**'],
    safe: 'false or unset: low; anything else, in any kind and outside any pod svc found: high (host access)',
    judge: (i) =>
      i.change.to === undefined || i.change.to === false || i.change.to === null
        ? verdict('low')
        : fixed('high', `asks for host access (${i.path.join('.')})`)(i),
  },
  {
    id: 'meta.pod-spec-patch',
    area: 'Every kind',
    scope: 'any',
    paths: ['**.podSpecPatch'],
    safe: 'none: a pod spec patch written as text (svc cannot judge the pod it makes)',
    judge: fixed('high', 'patches the pods it makes with text svc cannot judge as a pod'),
  },
];
