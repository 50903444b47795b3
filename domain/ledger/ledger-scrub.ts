import { REDACTED, scrubText } from '../security/scrub-credentials.js';
import { secretRedactor } from '../security/secret-spellings.js';
import { scrubSecretsInText } from '../security/scrub-secrets.js';
import type { ChangeRecord } from './change-entry.js';
import { isJsonObject } from '../json-object.js';

type Obj = Record<string, unknown>;

/**
 * Free text of an entry (the request, the model's rationale, the API
 * server's messages) as the ledger keeps it: svc's own credential values
 * first, then whatever looks like one (`Bearer ...`, `password=...`, JWTs,
 * API key shapes, URL userinfo) as `***`. The caller wrote the request and
 * a model wrote the rationale: either may carry a pasted token.
 */
export function scrubEntryText(text: string, secrets: readonly string[]): string {
  return scrubSecretsInText(scrubText(text, secrets));
}

/**
 * Every string of a value with svc's own credential values as `***` (only the
 * known values, in each of their spellings, encoded ones too: URLs in an
 * object's fields stay as the cluster has them, an undo writes them back): a
 * copy, or the value itself when none shows.
 */
function withoutKnown(value: unknown, redact: (text: string) => string, depth = 0): unknown {
  if (typeof value === 'string') return redact(value);
  if (depth > 64) return value;
  if (Array.isArray(value)) {
    const out = value.map((v) => withoutKnown(v, redact, depth + 1));
    return out.some((v, i) => v !== value[i]) ? out : value;
  }
  if (!isJsonObject(value)) return value;
  let changed = false;
  const out: Obj = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = withoutKnown(v, redact, depth + 1);
    changed ||= out[k] !== v;
  }
  return changed ? out : value;
}

/**
 * A record as the ledger may keep it: its free text scrubbed (scrubEntryText)
 * and svc's own credential values (auth token, model API key, model
 * headers, git token...) `***` in every other field. An inverse that held
 * one is dropped: an undo would write `***`.
 */
export function scrubRecord(record: ChangeRecord, secrets: readonly string[]): ChangeRecord {
  const text = (t: string | undefined) => (t === undefined ? undefined : scrubEntryText(t, secrets));
  const outcome = 'message' in record.outcome ? { ...record.outcome, message: text(record.outcome.message)! } : record.outcome;
  const scrubbed = withoutKnown(
    {
      ...record,
      ...(record.request !== undefined ? { request: text(record.request) } : {}),
      ...(record.rationale !== undefined ? { rationale: text(record.rationale) } : {}),
      ...(record.dryRun ? { dryRun: { ...record.dryRun, ...(record.dryRun.message !== undefined ? { message: text(record.dryRun.message) } : {}) } } : {}),
      outcome,
      ...(record.recovery ? { recovery: { ...record.recovery, message: text(record.recovery.message)! } } : {}),
      // a git host's answer is text from outside, as the API server's messages are
      ...(record.git?.pullRequestError !== undefined ? { git: { ...record.git, pullRequestError: text(record.git.pullRequestError) } } : {}),
      // a verdict's evidence is what the cluster said (conditions, events, waiting reasons)
      ...(record.verdict
        ? {
            verdict: {
              ...record.verdict,
              evidence: record.verdict.evidence.map((e) => text(e)!),
              ...(record.verdict.notReverted !== undefined ? { notReverted: text(record.verdict.notReverted) } : {}),
            },
          }
        : {}),
    },
    secretRedactor(secrets, REDACTED),
  ) as ChangeRecord;
  return scrubbed.inverse !== record.inverse && scrubbed.inverse !== null ? { ...scrubbed, inverse: null } : scrubbed;
}
