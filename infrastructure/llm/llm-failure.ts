import { DependencyError } from '../../domain/errors.js';
import { scrubText, scrubUrl } from '../../domain/security/scrub-credentials.js';

/** What one provider's settings are called, for messages that say what to check. */
export interface ProviderSettings {
  /** The variable holding the credential ('OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'the AWS credentials'). */
  credential: string;
  /** The variable holding the endpoint ('OPENAI_BASE_URL', ...). */
  endpoint: string;
  /** What a 404 means for this API ('no chat completions endpoint'). */
  notFound: string;
}

export interface FailureContext {
  baseUrl: string;
  model: string;
  timeoutMs: number;
  /** Every value that must not appear in a message: the key, SVC_LLM_HEADERS values, session tokens. */
  secrets: readonly string[];
  settings: ProviderSettings;
}

/** A provider failure, classified by the adapter from its SDK's error. */
export type ProviderFailure =
  { kind: 'timeout' } | { kind: 'aborted' } | { kind: 'unreachable' } | { kind: 'status'; status: number | undefined; detail: string };

const MAX_MESSAGE = 500;

/**
 * A classified failure -> DependencyError('llm'), the same words for every
 * provider. The provider's own text is scrubbed of every secret and shortened;
 * a 401 is described without it (a 401 body can quote the key).
 */
export function llmFailure(f: ProviderFailure, ctx: FailureContext): DependencyError {
  const where = scrubUrl(ctx.baseUrl);
  const fail = (message: string) => new DependencyError('llm', message);
  switch (f.kind) {
    case 'timeout':
      return fail(`AI provider at ${where} did not answer within ${ctx.timeoutMs} ms`);
    case 'aborted':
      return fail('AI provider request was aborted');
    case 'unreachable':
      return fail(`AI provider at ${where} is unreachable; check ${ctx.settings.endpoint}`);
  }
  const detail = scrubText(f.detail, ctx.secrets).slice(0, MAX_MESSAGE);
  const suffix = detail ? `: ${detail}` : '';
  const { credential, endpoint, notFound } = ctx.settings;
  switch (f.status) {
    case 401:
      return fail(`AI provider at ${where} refused the API key (401); check ${credential}`);
    case 403:
      return fail(`AI provider at ${where} denied access (403)${suffix}`);
    case 404:
      return fail(`AI provider at ${where} has no model "${ctx.model}" or ${notFound} (404); check SVC_LLM_MODEL and ${endpoint}${suffix}`);
    case 429:
      return fail(`AI provider rate limit or quota exceeded (429)${suffix}`);
    default:
      if (f.status !== undefined && f.status >= 500) return fail(`AI provider failed (${f.status})${suffix}`);
      return fail(`AI provider rejected the request (${f.status ?? 'no status'})${suffix}`);
  }
}
