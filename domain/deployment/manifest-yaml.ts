import { isJsonObject } from '../json-object.js';
/**
 * YAML text of JSON objects, for people: block style, strings quoted
 * whenever plain style could be read as something else. Any YAML 1.2 parser
 * reads it back to the same JSON (a unit test holds it to the `yaml` package).
 */

const PLAIN = /^[A-Za-z_/][A-Za-z0-9_./-]*$/;
const RESERVED = /^(true|false|yes|no|on|off|y|n|null|~)$/i;

function scalar(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  const s = String(v);
  return PLAIN.test(s) && !RESERVED.test(s) ? s : JSON.stringify(s);
}

const key = (k: string) => (PLAIN.test(k) && !RESERVED.test(k) ? k : JSON.stringify(k));

function lines(v: unknown, indent: string): string[] {
  if (isJsonObject(v)) {
    const entries = Object.entries(v).filter(([, x]) => x !== undefined);
    if (entries.length === 0) return [`${indent}{}`];
    return entries.flatMap(([k, x]) => {
      if ((isJsonObject(x) && Object.keys(x).length) || (Array.isArray(x) && x.length))
        return [`${indent}${key(k)}:`, ...lines(x, Array.isArray(x) ? indent : `${indent}  `)];
      return [`${indent}${key(k)}: ${isJsonObject(x) ? '{}' : Array.isArray(x) ? '[]' : scalar(x)}`];
    });
  }
  if (Array.isArray(v)) {
    if (v.length === 0) return [`${indent}[]`];
    return v.flatMap((x) => {
      if ((isJsonObject(x) && Object.keys(x).length) || (Array.isArray(x) && x.length)) {
        const inner = lines(x, `${indent}  `);
        return [`${indent}- ${inner[0].slice(indent.length + 2)}`, ...inner.slice(1)];
      }
      return [`${indent}- ${isJsonObject(x) ? '{}' : Array.isArray(x) ? '[]' : scalar(x)}`];
    });
  }
  return [`${indent}${scalar(v)}`];
}

/** One YAML document per object, separated by `---`. */
export function toYaml(objects: readonly unknown[]): string {
  return objects.map((o) => `${lines(o, '').join('\n')}\n`).join('---\n');
}
