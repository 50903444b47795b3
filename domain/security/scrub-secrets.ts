import { REDACTED, scrubText } from './scrub-credentials.js';
import { isJsonObject } from '../json-object.js';

/**
 * Scrubbing of what svc reads from a cluster before a model sees it (function
 * results): logs, events, objects. Beyond `scrubText` (URLs with userinfo or
 * credential query values), it redacts what clusters and programs print:
 * `Authorization: Bearer ...`, `password=...` style pairs, well-known token
 * shapes, PEM private keys, and in objects Secret data and credential-named
 * env values. Every pattern is linear in the text (bounded quantifiers, no
 * nested ones): logs are untrusted input.
 */

/** Names that carry a credential: DB_PASSWORD, apiKey, client-secret, x-auth-token, ... */
const CREDENTIAL_NAME =
  /pass(?:word|wd|phrase)?|pwd|secret|token|api[-_.]?key|access[-_.]?key|private[-_.]?key|credential|auth(?:orization)?$|session[-_.]?id|cookie/i;
/** ...unless they name where a credential is, not its value (secretName, tokenPath, passwordFile, secretKeyRef). */
const REFERENCE_NAME = /(?:name|ref|path|file|dir|namespace|kind|type|url|uri|endpoint|ttl|expir\w*|seconds|length|count)$/i;

export function isCredentialName(name: string): boolean {
  return CREDENTIAL_NAME.test(name) && !REFERENCE_NAME.test(name);
}

const AUTH_SCHEME = /\b(Bearer|Basic)([ \t]+)([A-Za-z0-9._~+/=-]{8,4096})/gi;
// key, then = or : (optionally quoted key and value), then the value up to a delimiter
const PAIR = /([A-Za-z0-9_.-]{1,64})(["']?[ \t]{0,8}[:=][ \t]{0,8}["']?)([^\s"'&,;<>]{1,4096})/g;
const TOKEN_SHAPES: RegExp[] = [
  /\beyJ[A-Za-z0-9_-]{8,4096}\.[A-Za-z0-9_-]{8,4096}\.[A-Za-z0-9_-]{8,4096}/g, // JWT
  /\b(?:gh[pousr]_[A-Za-z0-9]{20,255}|github_pat_[A-Za-z0-9_]{20,255})/g, // GitHub
  /\b(?:sk|rk|pk)-(?:[A-Za-z0-9]{1,16}-)?[A-Za-z0-9_-]{20,255}/g, // OpenAI-style and Stripe-style keys
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, // AWS access key id
  /\bxox[abposr]-[A-Za-z0-9-]{10,255}/g, // Slack
  /\bglpat-[A-Za-z0-9_-]{20,255}/g, // GitLab
];
// values that are not credentials; an auth scheme word is followed by one, which AUTH_SCHEME handles
const LITERAL = /^(?:true|false|null|none|bearer|basic|\d{1,6}|\*+)$/i;

/** Free text (a log, an event message, a config file): every credential it shows becomes `***`. */
export function scrubSecretsInText(text: string): string {
  let out = scrubPrivateKeys(scrubText(text));
  // a credential has a digit or a symbol; a word after "Basic" or "Bearer" is prose
  out = out.replace(AUTH_SCHEME, (m, scheme: string, space: string, value: string) => (/[^A-Za-z]/.test(value) ? `${scheme}${space}${REDACTED}` : m));
  out = scrubPairs(out);
  for (const shape of TOKEN_SHAPES) out = out.replace(shape, REDACTED);
  return out;
}

/**
 * `key=value` pairs with a credential name get `***` as value. A pair whose
 * key is no credential is scanned again from its value on, so a credential
 * pair inside another's value (`Deployment x/web: password=abc`,
 * `a=token=xyz`) is found too; each step moves past at least one key, so the
 * scan stays linear in the text.
 */
function scrubPairs(text: string): string {
  const pair = new RegExp(PAIR.source, 'g');
  let out = '';
  let from = 0;
  for (let m = pair.exec(text); m !== null; m = pair.exec(text)) {
    const [whole, key, sep, value] = m;
    if (isCredentialName(key) && !LITERAL.test(value)) {
      out += `${text.slice(from, m.index)}${key}${sep}${REDACTED}`;
      from = m.index + whole.length;
    } else {
      pair.lastIndex = m.index + key.length + sep.length;
    }
  }
  return out + text.slice(from);
}

const BEGIN = '-----BEGIN ';
/** PEM private key blocks, BEGIN to END (or to the end of the text when cut), found by indexOf: no backtracking. */
function scrubPrivateKeys(text: string): string {
  let out = '';
  let from = 0;
  for (;;) {
    const begin = text.indexOf(BEGIN, from);
    if (begin === -1) break;
    const headerEnd = text.indexOf('-----', begin + BEGIN.length);
    if (headerEnd === -1 || headerEnd - begin > 80 || !text.slice(begin, headerEnd).includes('PRIVATE KEY')) {
      out += text.slice(from, begin + BEGIN.length);
      from = begin + BEGIN.length;
      continue;
    }
    const end = text.indexOf('-----END ', headerEnd);
    const close = end === -1 ? -1 : text.indexOf('-----', end + 9);
    out += `${text.slice(from, begin)}${REDACTED}`;
    from = close === -1 ? text.length : close + 5;
  }
  return out + text.slice(from);
}

type Obj = Record<string, unknown>;
const MAX_DEPTH = 64;
/** Holds a whole earlier version of the object (env values, Secret data) as JSON text. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * A copy of a value read from the cluster with its credentials redacted: a
 * Secret's `data` and `stringData` values (the keys stay: which keys exist is
 * useful), `{name, value}` pairs whose name is a credential (env vars), string
 * values under a credential-named key, the last-applied annotation, and every
 * other string through `scrubSecretsInText`.
 */
export function scrubSecretsInValue(value: unknown): unknown {
  return walk(value, 0, false);
}

function walk(v: unknown, depth: number, secretData: boolean): unknown {
  if (typeof v === 'string') return secretData ? REDACTED : scrubSecretsInText(v);
  if (depth >= MAX_DEPTH) return Array.isArray(v) || isJsonObject(v) ? REDACTED : v;
  if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1, secretData));
  if (!isJsonObject(v)) return v;
  const isSecret = v.kind === 'Secret';
  const namedCredential = typeof v.name === 'string' && isCredentialName(v.name);
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === LAST_APPLIED && typeof x === 'string') out[k] = '(left out by svc: it repeats the object)';
    else if (isSecret && (k === 'data' || k === 'stringData')) out[k] = walk(x, depth + 1, true);
    else if (namedCredential && k === 'value' && typeof x === 'string') out[k] = REDACTED;
    else if (typeof x === 'string' && isCredentialName(k) && !LITERAL.test(x)) out[k] = REDACTED;
    else out[k] = walk(x, depth + 1, secretData);
  }
  return out;
}
