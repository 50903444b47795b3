import { isJsonObject } from '../json-object.js';
import { REDACTED } from './scrub-credentials.js';
import { secretRedactor } from './secret-spellings.js';

/**
 * Values of Kubernetes Secrets, collected so that they can be scrubbed by
 * value wherever they could show (a diff, a dry-run message, a session, a
 * ledger entry, an answer, text sent to a model), whatever field carries
 * them: a Secret's value copied into an annotation is found as surely as one
 * in `data`.
 */

/** Shorter values are not collected: scrubbing `1`, `true` or `admin` everywhere would redact ordinary text. */
export const MIN_SECRET_VALUE = 6;

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The values to scrub for one stored string: itself, and for base64 `data`, the decoded text too (when it is text). */
function spellingsOf(value: string, base64: boolean): string[] {
  const out = value.length >= MIN_SECRET_VALUE && value !== REDACTED ? [value] : [];
  if (base64 && STRICT_BASE64.test(value)) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    // a binary value (a keystore) has no text spelling worth scrubbing; its base64 is kept above
    // eslint-disable-next-line no-control-regex -- control characters mark binary data
    if (decoded.length >= MIN_SECRET_VALUE && !decoded.includes('\uFFFD') && !/[\u0000-\u0008\u000e-\u001f]/.test(decoded)) out.push(decoded);
  }
  return out;
}

const isSecret = (o: unknown): boolean => isJsonObject(o) && o.kind === 'Secret' && (o.apiVersion === 'v1' || o.apiVersion === undefined);

/** The values of a Secret object (`data` as stored, base64, and decoded; `stringData`); none for any other object. Lists (`items`) are searched too. */
export function secretValuesOf(object: unknown): string[] {
  if (isJsonObject(object) && Array.isArray(object.items)) return object.items.flatMap((i) => secretValuesOf(i));
  if (!isSecret(object)) return [];
  return valuesUnder((object as Record<string, unknown>).data, true).concat(valuesUnder((object as Record<string, unknown>).stringData, false));
}

function valuesUnder(map: unknown, base64: boolean): string[] {
  if (!isJsonObject(map)) return [];
  return Object.values(map).flatMap((v) => (typeof v === 'string' ? spellingsOf(v, base64) : []));
}

/**
 * The values a write puts into a Secret (`target` names its kind): an
 * applied manifest's `data` and `stringData`, an object patch's, and the
 * values of JSON Patch operations under `/data` or `/stringData` (or a
 * whole `/data` object).
 */
export function secretValuesWritten(target: { apiVersion: string; kind: string }, body: unknown): string[] {
  if (target.kind !== 'Secret' || target.apiVersion !== 'v1') return [];
  if (Array.isArray(body))
    return body.flatMap((op) => {
      if (!isJsonObject(op) || typeof op.path !== 'string') return [];
      const m = /^\/(data|stringData)(\/|$)/.exec(op.path);
      if (!m) return op.path === '' || op.path === '/' ? secretValuesOf({ kind: 'Secret', ...(isJsonObject(op.value) ? op.value : {}) }) : [];
      if (typeof op.value === 'string') return spellingsOf(op.value, m[1] === 'data');
      return valuesUnder(op.value, m[1] === 'data');
    });
  return secretValuesOf({ ...(isJsonObject(body) ? body : {}), kind: 'Secret', apiVersion: 'v1' });
}

const MAX_DEPTH = 64;

/**
 * A copy of `value` with every spelling of every secret (as stored, base64,
 * base64url, percent-encoded, also inside a longer encoded value:
 * redactSecrets) replaced by `***` in every string, object keys included.
 * The value itself when there is nothing to scrub.
 */
export function scrubSecretValues<T>(value: T, secrets: readonly string[]): T {
  if (!secrets.length) return value;
  const redact = secretRedactor(secrets, REDACTED);
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return redact(v);
    if (depth > MAX_DEPTH) return v;
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    if (!isJsonObject(v)) return v;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [redact(k), walk(x, depth + 1)]));
  };
  return walk(value, 0) as T;
}
