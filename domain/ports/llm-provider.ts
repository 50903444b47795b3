import type { ChatMessage, ChatOptions, ChatResult, ToolLoopRequest, ToolLoopResult } from '../llm/llm-types.js';

/** What the `version` tool reports about the AI provider. */
export interface LlmStatus {
  configured: boolean;
  /** 'openai' for api.openai.com, 'openai-compatible' for another base URL, 'none' when not configured. */
  provider: string;
  model?: string;
  /** How to configure it, when not configured. */
  hint?: string;
}

/**
 * Chat, tool loop and usage accounting.
 *
 * Failures: NotConfiguredError when no provider is configured (message says
 * to set OPENAI_API_KEY); ValidationError for bad arguments, before any I/O;
 * DependencyError('llm', ...) when the provider refuses the key (401/403),
 * does not know the model (404), rate-limits (429), rejects the request
 * (other 4xx), fails (5xx), does not answer in time, cannot be reached, or
 * answers with no choice. No message ever carries the API key.
 */
export interface LlmProvider {
  /** Configuration only, no I/O; never throws. */
  status(): LlmStatus;

  /**
   * One completion. With `options.tools` the model may answer with
   * `toolCalls` instead of (or besides) text; nothing is executed here.
   */
  chat(messages: ChatMessage[], options?: ChatOptions): Promise<ChatResult>;

  /**
   * Function calling: calls the model with `request.tools`, runs each tool
   * call through `request.executeTool`, feeds the results back, and stops on
   * an answer without tool calls (`stoppedBy: 'final-answer'`) or after
   * `request.maxIterations` model calls (`stoppedBy: 'max-iterations'`).
   * A tool that throws is reported to the model as an error result, not
   * rethrown; a provider failure is thrown. Usage is summed over all calls.
   */
  toolLoop(request: ToolLoopRequest): Promise<ToolLoopResult>;
}
