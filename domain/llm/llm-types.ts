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

export interface ChatOptions {
  /** Overrides the configured model. */
  model?: string;
  /** 0..2. */
  temperature?: number;
  /** Upper bound on output tokens, 1..200000. */
  maxOutputTokens?: number;
  /** Ask for a JSON object answer. */
  responseFormat?: 'text' | 'json';
  tools?: ToolSpec[];
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

/** What the tool loop hands to the caller's executor. */
export interface ToolInvocation {
  id: string;
  name: string;
  /** Parsed JSON arguments (an object). */
  arguments: Record<string, unknown>;
}

export interface ToolLoopRequest {
  messages: ChatMessage[];
  tools: ToolSpec[];
  /** Runs one tool call; a string is passed to the model as is, anything else as JSON. */
  executeTool(invocation: ToolInvocation): Promise<unknown>;
  /** Bound on model calls, 1..50; default 10. */
  maxIterations?: number;
  options?: Omit<ChatOptions, 'tools'>;
}

/** One executed (or refused) tool call, in order. */
export interface ToolCallRecord {
  name: string;
  arguments: string;
  ok: boolean;
  /** Error text when `ok` is false. */
  error?: string;
}

export interface ToolLoopResult {
  /** The final answer; with `max-iterations`, the last text the model gave ('' if none). */
  text: string;
  stoppedBy: 'final-answer' | 'max-iterations';
  /** Model calls made. */
  iterations: number;
  toolCalls: ToolCallRecord[];
  /** Summed over every model call. */
  usage: TokenUsage;
  model: string;
}
