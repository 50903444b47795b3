import type { KubeObject } from '../../domain/cluster/kube-types.js';
import { changedFields } from '../../domain/evaluation/changed-fields.js';
import type { ObservedWrite } from '../../domain/evaluation/case-result.js';
import { RESOURCES, type KubeApiServer, type Obj } from '../sandbox/stand-in.js';

/** The sandbox's objects, deep-copied: the state before a case. */
export type Snapshot = ReadonlyMap<string, Obj>;

export const snapshot = (server: KubeApiServer): Snapshot => new Map([...server.objects].map(([k, v]) => [k, structuredClone(v)]));

/** The object path a write request went to (`/apis/apps/v1/namespaces/x/deployments/web/scale` -> its Deployment), with its kind. */
function target(path: string): { key: string; kind: string; namespace?: string; name: string } | undefined {
  const m = /^(\/api\/v1|\/apis\/([^/]+\/[^/]+))(?:\/namespaces\/([^/]+))?\/([^/]+)\/([^/]+)(?:\/[^/]+)?$/.exec(path);
  if (!m) return undefined;
  const gv = m[2] ?? 'v1';
  const kind = RESOURCES[gv]?.find((r) => r.name === m[4])?.kind;
  if (!kind) return undefined;
  const key = `${m[1]}${m[3] ? `/namespaces/${m[3]}` : ''}/${m[4]}/${m[5]}`;
  return { key, kind, ...(m[3] ? { namespace: m[3] } : {}), name: decodeURIComponent(m[5]) };
}

function createdName(body: string | undefined): string {
  try {
    const name = (JSON.parse(body ?? '') as { metadata?: { name?: unknown } }).metadata?.name;
    return typeof name === 'string' ? name : '';
  } catch {
    return '';
  }
}

/**
 * What a case wrote to the sandbox: every object a write request (not a dry
 * run) went to since request `from`, judged by its state before the case and
 * now, so a refused write counts as nothing and a create, a change or a
 * delete as what it did.
 */
export function observedWrites(server: KubeApiServer, before: Snapshot, from: number): ObservedWrite[] {
  const seen = new Map<string, ObservedWrite>();
  for (const r of server.requests.slice(from)) {
    if (r.method === 'GET' || r.query.get('dryRun') === 'All') continue;
    // a create is a POST to the collection: the object is named in the body
    const t = target(r.method === 'POST' ? `${r.path}/${encodeURIComponent(createdName(r.body))}` : r.path);
    if (!t || seen.has(t.key)) continue;
    const [was, now] = [before.get(t.key), server.objects.get(t.key)];
    const ref = { kind: t.kind, ...(t.namespace ? { namespace: t.namespace } : {}), name: t.name };
    if (!was && now) seen.set(t.key, { verb: 'create', ...ref, fields: changedFields({}, now as KubeObject) });
    else if (was && !now) seen.set(t.key, { verb: 'delete', ...ref, fields: [] });
    else if (was && now) {
      const fields = changedFields(was, now);
      if (fields.length) seen.set(t.key, { verb: 'patch', ...ref, fields });
    }
  }
  return [...seen.values()];
}

/** The written objects not back as they were before the case (after the ledger's reverts). */
export function notRestored(server: KubeApiServer, before: Snapshot, writes: readonly ObservedWrite[]): string[] {
  const out: string[] = [];
  for (const [key, was] of before) {
    const w = writes.find((x) => key.endsWith(`/${x.name}`) && was.kind === x.kind && (x.namespace ?? undefined) === (was.metadata.namespace ?? undefined));
    if (!w) continue;
    const now = server.objects.get(key);
    if (!now) out.push(`${w.kind} ${w.name} is still deleted`);
    else if (changedFields(was, now).length) out.push(`${w.kind} ${w.name} still differs in ${changedFields(was, now).slice(0, 3).join(', ')}`);
  }
  for (const w of writes.filter((x) => x.verb === 'create'))
    if ([...server.objects.values()].some((o) => o.kind === w.kind && o.metadata.name === w.name && o.metadata.namespace === w.namespace))
      out.push(`${w.kind} ${w.name}, created by the case, still exists`);
  return out;
}
