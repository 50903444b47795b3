/** Chat data as the domain sees it; adapters map these to and from their SDK. */

export interface ToolCall {
  /** Provider-assigned id, echoed back in the matching `tool` message. */
  id: string;
  name: string;
  /** The model's arguments as raw JSON text (it may be malformed). */
  arguments: string;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

/** A function the model may call. */
export interface ToolSpec {
  /** 1..64 of [A-Za-z0-9_-]. */
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

/**
 * How a structured answer is asked of the backend (SVC_LLM_STRUCTURED_OUTPUT):
 * `json_schema` sends the schema in `response_format`, `json_object` asks for
 * JSON mode only, `none` asks for nothing (the instructions alone ask for JSON).
 */
export type StructuredOutputMode = 'json_schema' | 'json_object' | 'none';

export interface ChatOptions {
  /** Overrides the configured model. */
  model?: string;
  /** 0..2. */
  temperature?: number;
  /** Upper bound on output tokens, 1..200000. */
  maxOutputTokens?: number;
  /**
   * Ask for a JSON object answer; with `jsonSchema`, one that fits that schema.
   * How much of this the backend is asked for is the adapter's setting
   * (SVC_LLM_STRUCTURED_OUTPUT): the caller still checks the answer itself.
   */
  responseFormat?: 'text' | 'json' | { jsonSchema: { name: string; schema: Record<string, unknown> } };
  tools?: ToolSpec[];
  /** Aborts the request (a run's deadline); the call then fails with DependencyError. */
  signal?: AbortSignal;
}

/** Token counts as the provider reports them. */
export interface TokenUsage {
  /** All prompt tokens, cached ones included. */
  inputTokens: number;
  outputTokens: number;
  /** Prompt tokens served from the provider's cache (0 when not reported). */
  cacheReadTokens: number;
  /** Prompt tokens written to the provider's cache (0 when not reported). */
  cacheCreationTokens: number;
}

export interface ChatResult {
  /** The answer text; '' when the model only called tools. */
  text: string;
  toolCalls: ToolCall[];
  usage: TokenUsage;
  /** The model that answered, as the provider names it. */
  model: string;
  /** e.g. 'stop', 'tool_calls', 'length'. */
  finishReason: string;
}
