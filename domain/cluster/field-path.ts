import { isJsonObject } from '../json-object.js';
/**
 * A path into an object, the way a model asks for one part of a large
 * Kubernetes object: `spec.template.spec.containers`, `status.conditions[0]`,
 * `spec.template.spec.containers[name=web].env`. Keys are letters, digits,
 * `_`, `-` and `$`; `[n]` indexes a list; `[name=v]` picks the list item whose
 * `name` is v. Bounded (length and depth) and parsed before any lookup.
 */

export const MAX_FIELD_PATH_CHARS = 200;
export const MAX_FIELD_PATH_SEGMENTS = 16;

const KEY = '[A-Za-z0-9_$-]+';
const STEP = `(?:\\.${KEY}|\\[\\d{1,4}\\]|\\[name=[A-Za-z0-9_.:-]{1,253}\\])`;
/** Anchored and without nested quantifiers over the same characters: linear to test. */
export const FIELD_PATH_PATTERN = new RegExp(`^${KEY}${STEP}*$`);

type Segment = { key: string } | { index: number } | { name: string };

export type FieldLookup = { found: true; value: unknown } | { found: false; problem: string };

export function parseFieldPath(path: string): Segment[] | undefined {
  if (path.length > MAX_FIELD_PATH_CHARS || !FIELD_PATH_PATTERN.test(path)) return undefined;
  const segments: Segment[] = [];
  for (const m of path.matchAll(/([A-Za-z0-9_$-]+)|\[(\d+)\]|\[name=([^\]]+)\]/g)) {
    if (m[1] !== undefined) segments.push(/^\d+$/.test(m[1]) ? { index: Number(m[1]) } : { key: m[1] });
    else if (m[2] !== undefined) segments.push({ index: Number(m[2]) });
    else segments.push({ name: m[3] });
  }
  return segments.length <= MAX_FIELD_PATH_SEGMENTS ? segments : undefined;
}

const show = (s: Segment) => ('key' in s ? `.${s.key}` : 'index' in s ? `[${s.index}]` : `[name=${s.name}]`);

/** The value at `path` in `root`, or what is there instead, in words a model can act on. */
export function selectField(root: unknown, path: string): FieldLookup {
  const segments = parseFieldPath(path);
  if (!segments)
    return {
      found: false,
      problem: `invalid fieldPath: use keys separated by dots, [n] or [name=x] for a list item, at most ${MAX_FIELD_PATH_SEGMENTS} steps and ${MAX_FIELD_PATH_CHARS} characters`,
    };
  let value = root;
  let at = '';
  for (const s of segments) {
    const here = at || 'the object';
    if ('key' in s) {
      if (!isJsonObject(value)) return { found: false, problem: `${here} is ${describe(value)}, not an object with ${s.key}` };
      if (!Object.hasOwn(value, s.key))
        return { found: false, problem: `no field ${s.key} in ${here} (it has: ${Object.keys(value).slice(0, 40).join(', ') || 'nothing'})` };
      value = value[s.key];
    } else if (!Array.isArray(value)) {
      return { found: false, problem: `${here} is ${describe(value)}, not a list` };
    } else if ('index' in s) {
      if (s.index >= value.length) return { found: false, problem: `${here} has ${value.length} items; [${s.index}] is past the end` };
      value = value[s.index];
    } else {
      const item = value.find((v) => isJsonObject(v) && v.name === s.name);
      if (item === undefined) {
        const names = value.map((v) => (isJsonObject(v) && typeof v.name === 'string' ? v.name : undefined)).filter(Boolean);
        return { found: false, problem: `no item named ${s.name} in ${here} (names: ${names.slice(0, 40).join(', ') || 'none'})` };
      }
      value = item;
    }
    at = at ? `${at}${show(s)}` : show(s).replace(/^\./, '');
  }
  return { found: true, value };
}

function describe(v: unknown): string {
  if (v === null || v === undefined) return 'empty';
  return Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}
