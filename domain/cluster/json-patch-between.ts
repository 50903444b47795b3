import type { JsonPatchOp } from './kube-types.js';
import { isJsonObject } from '../json-object.js';

type Obj = Record<string, unknown>;

/** An RFC 6901 reference token: `~` and `/` escaped, so `metadata.annotations["a.b/c"]` is `/metadata/annotations/a.b~1c`. */
export const pointerToken = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** RFC 7386 JSON merge patch of `patch` onto `target`: null deletes a key, objects merge, anything else (arrays too) replaces. */
export function mergePatched(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return patch;
  const out: Obj = isJsonObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatched(out[k], v);
  }
  return out;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * The RFC 6902 operations that turn `from` into `to`, touching only what
 * differs: objects are walked key by key (`add` a new key, `remove` a gone
 * one), lists element by element (changed elements at their index, new ones
 * appended with `-`, dropped ones removed from the end so the indexes of
 * the rest stay valid), anything else `replace`d. Pure; `[]` when equal.
 */
export function jsonPatchBetween(from: unknown, to: unknown, at = ''): JsonPatchOp[] {
  if (same(from, to)) return [];
  if (isJsonObject(from) && isJsonObject(to)) {
    const ops: JsonPatchOp[] = [];
    for (const k of Object.keys(from)) if (!(k in to)) ops.push({ op: 'remove', path: `${at}/${pointerToken(k)}` });
    for (const [k, v] of Object.entries(to)) {
      const path = `${at}/${pointerToken(k)}`;
      if (!(k in from)) ops.push({ op: 'add', path, value: v });
      else ops.push(...jsonPatchBetween(from[k], v, path));
    }
    return ops;
  }
  if (Array.isArray(from) && Array.isArray(to)) {
    const ops: JsonPatchOp[] = [];
    const common = Math.min(from.length, to.length);
    for (let i = 0; i < common; i++) ops.push(...jsonPatchBetween(from[i], to[i], `${at}/${i}`));
    for (let i = common; i < to.length; i++) ops.push({ op: 'add', path: `${at}/-`, value: to[i] });
    for (let i = from.length - 1; i >= common; i--) ops.push({ op: 'remove', path: `${at}/${i}` });
    return ops;
  }
  return [{ op: 'replace', path: at, value: to }];
}
