import type { RiskLevel } from '../../domain/actions/cluster-action.js';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import type { ResolvedTarget } from '../../domain/write-guard/resolved-target.js';
import type { WriteAsSent } from '../../domain/write-guard/sent-write.js';
import { judgeWrite, type GuardAllowance, type GuardSettings, type GuardVerdict } from '../../domain/write-guard/write-guard.js';

/** Builders for the write guard's unit tests: targets as discovery resolves them, objects, and the judgement. */
export const OPEN: GuardSettings = {
  kinds: [],
  namespaces: [],
  protectedNamespaces: ['kube-system', 'svc'],
  imageRegistries: [],
  podSecurityLevel: 'baseline',
  kindRisks: [],
};

/**
 * A target in `shop`, or cluster-scoped when `namespace` is given as
 * undefined (a default parameter would turn that undefined into `shop`).
 */
export const at = (group: string, kind: string, ...place: [namespace?: string, name?: string]): ResolvedTarget => {
  const namespace = place.length ? place[0] : 'shop';
  return target(group, kind, namespace, place[1] ?? 'web');
};

const target = (group: string, kind: string, namespace: string | undefined, name: string): ResolvedTarget => ({
  group,
  version: 'v1',
  kind,
  resource: `${kind.toLowerCase()}s`,
  namespaced: namespace !== undefined,
  name,
  ...(namespace ? { namespace } : {}),
});

export const obj = (apiVersion: string, kind: string, rest: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name: 'web', namespace: 'shop', ...meta },
  ...rest,
});

/** A pod spec with one container from ghcr.io, plus `spec`. */
export const podSpec = (spec: Record<string, unknown> = {}, container: Record<string, unknown> = {}) => ({
  containers: [{ name: 'app', image: 'ghcr.io/acme/web:1.0', ...container }],
  ...spec,
});

export const deployment = (spec: Record<string, unknown> = {}, container: Record<string, unknown> = {}, template: Record<string, unknown> = {}) =>
  obj('apps/v1', 'Deployment', {
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: podSpec(spec, container), ...template },
    },
  });

export const DEPLOYMENT = at('apps', 'Deployment');
export const MERGE: WriteAsSent = { verb: 'patch', patchType: 'merge', patch: { spec: {} } };

export interface Judged {
  target: ResolvedTarget;
  live: KubeObject | null;
  result: KubeObject | null;
  write?: WriteAsSent;
  settings?: Partial<GuardSettings>;
  label?: RiskLevel;
  namespaceLabels?: Record<string, string>;
}

export const judge = (j: Judged): GuardVerdict =>
  judgeWrite({
    target: j.target,
    live: j.live,
    result: j.result,
    write: j.write ?? (j.live ? MERGE : { verb: 'apply' }),
    settings: { ...OPEN, ...j.settings },
    ...(j.label ? { label: j.label } : {}),
    ...(j.namespaceLabels ? { namespaceLabels: j.namespaceLabels } : {}),
  });

/** The allowance, or a thrown refusal. */
export function allowed(v: GuardVerdict): GuardAllowance {
  if (!v.allowed) throw new Error(`refused: ${v.reason}`);
  return v;
}

/** The risk and reasons of a Deployment patch from `deployment()` to `deployment(...after)`. */
export const deploymentChange = (after: Parameters<typeof deployment>, j: Partial<Judged> = {}) =>
  allowed(judge({ target: DEPLOYMENT, live: deployment(), result: deployment(...after), ...j }));
