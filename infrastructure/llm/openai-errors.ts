import type OpenAI from 'openai';
import { DependencyError, DomainError } from '../../domain/errors.js';
import { llmFailure, type FailureContext } from './llm-failure.js';
import { openAiSdk } from './openai-sdk.js';

export const OPENAI_SETTINGS = { credential: 'OPENAI_API_KEY', endpoint: 'OPENAI_BASE_URL', notFound: 'no chat completions endpoint' } as const;

/** The provider's own error text (OpenAI's `error.message`). */
function providerMessage(e: InstanceType<typeof OpenAI.APIError>): string {
  const body = e.error as { message?: unknown } | undefined;
  return typeof body?.message === 'string' ? body.message : '';
}

/** SDK failure -> DependencyError('llm') (llmFailure's words); the key never appears. */
export function toLlmError(e: unknown, ctx: FailureContext): DomainError {
  if (e instanceof DomainError) return e;
  const { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } = openAiSdk();
  if (e instanceof APIConnectionTimeoutError) return llmFailure({ kind: 'timeout' }, ctx);
  if (e instanceof APIUserAbortError) return llmFailure({ kind: 'aborted' }, ctx);
  if (e instanceof APIConnectionError) return llmFailure({ kind: 'unreachable' }, ctx);
  if (e instanceof APIError) return llmFailure({ kind: 'status', status: e.status, detail: providerMessage(e) }, ctx);
  // Unknown failures are not echoed: their text is not ours to vouch for.
  return new DependencyError('llm', 'AI provider call failed');
}
