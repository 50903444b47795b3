import { ConfigError, str, type Env } from './env-parsers.js';

const NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
/** Headers the HTTP client or the provider's signature owns: a gateway header may not replace them. */
const RESERVED = new Set(['host', 'content-length', 'content-type', 'transfer-encoding', 'connection', 'expect', 'te', 'upgrade']);
const MAX_HEADERS = 32;
const MAX_VALUE = 8192;

/**
 * SVC_LLM_HEADERS: a JSON object of header name -> string value. Errors name
 * the header, never its value (the values are credentials more often than not).
 */
export function parseLlmHeaders(env: Env): Record<string, string> {
  const raw = str(env, 'SVC_LLM_HEADERS');
  if (raw === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError('SVC_LLM_HEADERS', 'must be a JSON object of header names to string values');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError('SVC_LLM_HEADERS', 'must be a JSON object of header names to string values');
  }
  const entries = Object.entries(parsed as Record<string, unknown>);
  if (entries.length > MAX_HEADERS) throw new ConfigError('SVC_LLM_HEADERS', `may name at most ${MAX_HEADERS} headers`);
  const out: Record<string, string> = {};
  const seen = new Set<string>();
  for (const [name, value] of entries) {
    const shown = JSON.stringify(name.slice(0, 100));
    if (!NAME.test(name)) throw new ConfigError('SVC_LLM_HEADERS', `has an invalid header name ${shown}`);
    const lower = name.toLowerCase();
    if (RESERVED.has(lower)) throw new ConfigError('SVC_LLM_HEADERS', `may not set ${shown}: the HTTP client sets it`);
    if (seen.has(lower)) throw new ConfigError('SVC_LLM_HEADERS', `names ${shown} twice`);
    seen.add(lower);
    if (typeof value !== 'string' || value.length === 0 || value.length > MAX_VALUE || !/^[\t\x20-\x7e\x80-\xff]+$/.test(value)) {
      throw new ConfigError('SVC_LLM_HEADERS', `value of ${shown} must be a non-empty string of printable characters (at most ${MAX_VALUE})`);
    }
    out[name] = value;
  }
  return out;
}
