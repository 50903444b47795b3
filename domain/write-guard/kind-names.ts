import { BUILT_IN_API_GROUPS } from '../cluster/patch-type.js';

/** One entry of SVC_WRITE_KINDS: `apps/Deployment`, `core/Service`, `serving.knative.dev/Service`, or a bare `Service`. */
export interface KindName {
  /** undefined for a bare kind: it names the built-in API groups only (core, apps, batch, networking.k8s.io, ...), never a custom resource. */
  group?: string;
  kind: string;
}

const KIND = /^[A-Z][A-Za-z0-9]{0,62}$/;
const GROUP = /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/;

/**
 * Parses one SVC_WRITE_KINDS entry. `group/Kind` names that group only
 * (`core/` or `/` for the core group); a bare `Kind` names that kind in the
 * built-in API groups only, so `Service` is the core Service and never a
 * Knative `serving.knative.dev` Service. Throws on anything else.
 */
export function parseKindName(entry: string): KindName {
  const s = entry.trim();
  const slash = s.lastIndexOf('/');
  const kind = slash < 0 ? s : s.slice(slash + 1);
  const group = slash < 0 ? undefined : s.slice(0, slash);
  if (!KIND.test(kind)) throw new Error(`"${entry}" is not a kind (such as Deployment, apps/Deployment or serving.knative.dev/Service)`);
  if (group === undefined) return { kind };
  if (group === '' || group === 'core') return { group: '', kind };
  if (!GROUP.test(group)) throw new Error(`"${entry}": "${group}" is not an API group (such as apps or serving.knative.dev)`);
  return { group, kind };
}

/** How an entry reads in a message. */
export const formatKindName = (k: KindName): string => (k.group === undefined ? k.kind : `${k.group || 'core'}/${k.kind}`);

/** Whether `group`/`kind` (from discovery) is named by one of `names`; an empty list names every kind. */
export function kindNamed(names: readonly KindName[], group: string, kind: string): boolean {
  if (names.length === 0) return true;
  return names.some((n) => n.kind === kind && (n.group === undefined ? BUILT_IN_API_GROUPS.has(group) : n.group === group));
}
