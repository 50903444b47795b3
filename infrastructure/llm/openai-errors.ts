import OpenAI from 'openai';
import { DependencyError, DomainError } from '../../domain/errors.js';
import { scrubText, scrubUrl } from '../../domain/security/scrub-credentials.js';

export interface ErrorContext {
  apiKey: string;
  baseUrl: string;
  model: string;
  timeoutMs: number;
}

const MAX_MESSAGE = 500;

/** The provider's own error text (OpenAI's `error.message`), scrubbed and shortened. */
function providerMessage(e: InstanceType<typeof OpenAI.APIError>, ctx: ErrorContext): string {
  const body = e.error as { message?: unknown } | undefined;
  const raw = typeof body?.message === 'string' ? body.message : '';
  return scrubText(raw, [ctx.apiKey]).slice(0, MAX_MESSAGE);
}

/**
 * SDK failure -> DependencyError('llm'). Messages say what went wrong and
 * what to check; the key never appears (a 401 body can quote part of it, so
 * a 401 is described without the body).
 */
export function toLlmError(e: unknown, ctx: ErrorContext): DomainError {
  if (e instanceof DomainError) return e;
  const where = scrubUrl(ctx.baseUrl);
  const fail = (message: string) => new DependencyError('llm', message);
  if (e instanceof OpenAI.APIConnectionTimeoutError) return fail(`AI provider at ${where} did not answer within ${ctx.timeoutMs} ms`);
  if (e instanceof OpenAI.APIUserAbortError) return fail('AI provider request was aborted');
  if (e instanceof OpenAI.APIConnectionError) return fail(`AI provider at ${where} is unreachable; check OPENAI_BASE_URL`);
  if (e instanceof OpenAI.APIError) {
    const detail = providerMessage(e, ctx);
    const suffix = detail ? `: ${detail}` : '';
    switch (e.status) {
      case 401:
        return fail(`AI provider at ${where} refused the API key (401); check OPENAI_API_KEY`);
      case 403:
        return fail(`AI provider at ${where} denied access (403)${suffix}`);
      case 404:
        return fail(
          `AI provider at ${where} has no model "${ctx.model}" or no chat completions endpoint (404); check SVC_LLM_MODEL and OPENAI_BASE_URL${suffix}`,
        );
      case 429:
        return fail(`AI provider rate limit or quota exceeded (429)${suffix}`);
      default:
        if (e.status !== undefined && e.status >= 500) return fail(`AI provider failed (${e.status})${suffix}`);
        return fail(`AI provider rejected the request (${e.status ?? 'no status'})${suffix}`);
    }
  }
  // Unknown failures are not echoed: their text is not ours to vouch for.
  return fail('AI provider call failed');
}
