import { isJsonObject } from '../json-object.js';

/** Fields the API server and controllers keep up to date themselves: never counted as what a write changed. */
const SERVER_KEYS = new Set([
  'status',
  'metadata.resourceVersion',
  'metadata.generation',
  'metadata.uid',
  'metadata.creationTimestamp',
  'metadata.managedFields',
]);
const SERVER_ANNOTATIONS = new Set(['deployment.kubernetes.io/revision', 'kubectl.kubernetes.io/last-applied-configuration']);

const MAX_PATHS = 200;

/**
 * The leaf paths that differ between two states of one object, in the field
 * path syntax (`spec.template.spec.containers[name=web].image`; list items
 * with a `name` by name, others by index). Status and server-kept metadata
 * are left out. Bounded to 200 paths.
 */
export function changedFields(before: unknown, after: unknown): string[] {
  const out: string[] = [];
  walk(before, after, '', out);
  return out;
}

function walk(a: unknown, b: unknown, path: string, out: string[]): void {
  if (out.length >= MAX_PATHS || SERVER_KEYS.has(path)) return;
  if (path.startsWith('metadata.annotations.') && SERVER_ANNOTATIONS.has(path.slice('metadata.annotations.'.length))) return;
  const objectOrNothing = (x: unknown) => isJsonObject(x) || x === undefined;
  if (objectOrNothing(a) && objectOrNothing(b) && (a !== undefined || b !== undefined)) {
    const [ma, mb] = [(a ?? {}) as Record<string, unknown>, (b ?? {}) as Record<string, unknown>];
    for (const k of new Set([...Object.keys(ma), ...Object.keys(mb)])) walk(ma[k], mb[k], path ? `${path}.${k}` : k, out);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const named = [...a, ...b].every((x) => isJsonObject(x) && typeof x.name === 'string');
    if (named) {
      const byName = (xs: unknown[]) => new Map(xs.map((x) => [(x as { name: string }).name, x]));
      const [ma, mb] = [byName(a), byName(b)];
      for (const n of new Set([...ma.keys(), ...mb.keys()])) walk(ma.get(n), mb.get(n), `${path}[name=${n}]`, out);
    } else for (let i = 0; i < Math.max(a.length, b.length); i++) walk(a[i], b[i], `${path}[${i}]`, out);
    return;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push(path || '(whole object)');
}

/** A field pattern (`spec.template.spec.containers[*].image`, `[*]` any item) as a test of a changed path: either is a prefix of the other. */
export function fieldMatcher(pattern: string): (path: string) => boolean {
  const steps = (p: string) => p.match(/[^.[\]]+|\[[^\]]*\]/g) ?? [];
  const want = steps(pattern);
  return (path) => {
    const have = steps(path);
    const n = Math.min(want.length, have.length);
    for (let i = 0; i < n; i++) if (want[i] !== have[i] && !(want[i] === '[*]' && have[i].startsWith('['))) return false;
    return true;
  };
}
