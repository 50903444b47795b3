import { selectField } from '../cluster/field-path.js';
import { BEHAVIOUR_OPERATORS, CONDITION_OPERATORS, type FieldCondition } from './scenario.js';

const UNITS: Record<string, number> = { m: 1e-3, k: 1e3, K: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4 };

/** A Kubernetes quantity (`256Mi`, `500m`, `1.5`) or a number as a number of base units; undefined when it is neither. */
export function quantityValue(q: unknown): number | undefined {
  if (typeof q === 'number') return Number.isFinite(q) ? q : undefined;
  const m = /^(\d+(?:\.\d+)?)(m|k|Ki|Mi|Gi|Ti|K|M|G|T)?$/.exec(typeof q === 'string' ? q.trim() : '');
  return m ? Number(m[1]) * (m[2] ? UNITS[m[2]] : 1) : undefined;
}

const same = (a: unknown, b: unknown) =>
  a === b || (typeof a === 'number' && typeof b === 'string' && String(a) === b) || (typeof a === 'string' && typeof b === 'number' && a === String(b));

/**
 * Whether one condition holds on an object (undefined: the object does not
 * exist, and every operator but `exists: false` fails). A condition on `env`
 * or a behaviour is judged on the live cluster (lab/sandbox), not here.
 */
export function conditionHolds(c: FieldCondition, object: unknown): boolean {
  const field = object === undefined || c.path === undefined ? { found: false as const } : selectField(object, c.path);
  return valueHolds(c, field.found ? field.value : undefined);
}

/** Whether a condition's operator holds on a value (undefined or null: absent). */
export function valueHolds(c: FieldCondition, value: unknown): boolean {
  const present = value !== undefined && value !== null;
  if (c.exists !== undefined) return c.exists === present;
  if (c.notEquals !== undefined) return !present || !same(value, c.notEquals);
  if (!present) return c.equals === null;
  if (c.equals !== undefined) return same(value, c.equals);
  if (c.oneOf !== undefined) return c.oneOf.some((v) => same(value, v));
  if (c.matches !== undefined) return typeof value === 'string' && new RegExp(c.matches).test(value);
  if (c.includes !== undefined) {
    if (Array.isArray(value)) return value.some((v) => same(v, c.includes));
    return typeof value === 'string' && typeof c.includes === 'string' && value.includes(c.includes);
  }
  const have = quantityValue(value);
  if (have === undefined) return false;
  if (c.atLeast !== undefined) return have >= (quantityValue(c.atLeast) ?? Infinity);
  if (c.atMost !== undefined) return have <= (quantityValue(c.atMost) ?? -Infinity);
  return false;
}

/** The condition in words, for reports: `Deployment shop/web spec.replicas atLeast 3`, `Deployment shop/web env API_URL reaches {"service":"catalog"}`. */
export function describeCondition(c: FieldCondition, defaultObject: string): string {
  const op = ([...CONDITION_OPERATORS, ...BEHAVIOUR_OPERATORS] as const).find((k) => c[k] !== undefined)!;
  const where = c.object ? `${c.object.kind} ${c.object.namespace ? `${c.object.namespace}/` : ''}${c.object.name}` : defaultObject;
  const subject = c.env ? ` env ${c.env.container ? `${c.env.container}/` : ''}${c.env.name}` : c.path ? ` ${c.path}` : '';
  return `${where}${subject} ${op} ${JSON.stringify(c[op])}`;
}
