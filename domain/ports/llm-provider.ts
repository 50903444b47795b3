import type { ChatMessage, ChatOptions, ChatResult, StructuredOutputMode } from '../llm/llm-types.js';

/** What the `version` tool reports about the AI provider. */
export interface LlmStatus {
  configured: boolean;
  /**
   * 'openai' for api.openai.com, 'openai-compatible' for another base URL,
   * 'anthropic', 'bedrock', or 'none' when not configured.
   */
  provider: string;
  model?: string;
  /** How to configure it: the provider's settings. */
  hint?: string;
  /** Names of the extra headers sent with every request (SVC_LLM_HEADERS); never their values. */
  headers?: string[];
  /**
   * How structured answers are asked of the backend; absent means
   * `json_schema`. With `json_object` or `none` the backend does not see the
   * schema, so the caller puts it (and an example) in the instructions.
   */
  structuredOutput?: StructuredOutputMode;
}

/**
 * One chat completion with usage accounting. The function-calling loop is
 * an algorithm over `chat` (application/ai/tool-loop.ts), not a port method.
 *
 * Failures: NotConfiguredError when no provider is configured (message says
 * to set OPENAI_API_KEY); ValidationError for bad arguments, before any I/O;
 * DependencyError('llm', ...) when the provider refuses the key (401/403),
 * the model declines to answer (a refusal), stops at its output limit before
 * any content,
 * does not know the model (404), rate-limits (429), rejects the request
 * (other 4xx), fails (5xx), does not answer in time, cannot be reached, or
 * answers with no choice. No message ever carries the API key, a header value or a session token.
 */
export interface LlmProvider {
  /** Configuration only, no I/O; never throws. */
  status(): LlmStatus;

  /**
   * One completion. With `options.tools` the model may answer with
   * `toolCalls` instead of (or besides) text; nothing is executed here.
   */
  chat(messages: ChatMessage[], options?: ChatOptions): Promise<ChatResult>;
}
