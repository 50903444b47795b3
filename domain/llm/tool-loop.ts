import { ValidationError } from '../errors.js';
import type {
  ChatMessage,
  ChatOptions,
  ChatResult,
  TokenUsage,
  ToolCallRecord,
  ToolLoopRequest,
  ToolLoopResult,
  ToolSpec,
} from './llm-types.js';

export const DEFAULT_MAX_ITERATIONS = 10;
export const MAX_ITERATIONS_LIMIT = 50;
/** A tool result longer than this is cut, so one chatty tool cannot blow the context window. */
export const MAX_TOOL_RESULT_CHARS = 50000;
/** Tool calls run per model answer; the rest are answered with an error so the model asks again. */
export const MAX_TOOL_CALLS_PER_ANSWER = 32;

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export type ChatFn = (messages: ChatMessage[], options: ChatOptions) => Promise<ChatResult>;

export function emptyUsage(): TokenUsage {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 };
}

function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheCreationTokens: a.cacheCreationTokens + b.cacheCreationTokens,
  };
}

export function validateTools(tools: ToolSpec[]): void {
  if (!Array.isArray(tools)) throw new ValidationError('Invalid tools: expected an array');
  const seen = new Set<string>();
  for (const tool of tools) {
    if (!tool || typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name)) {
      throw new ValidationError(`Invalid tool name: ${JSON.stringify(tool?.name)} (1 to 64 of A-Z a-z 0-9 _ -)`);
    }
    if (seen.has(tool.name)) throw new ValidationError(`Duplicate tool name: ${tool.name}`);
    seen.add(tool.name);
    if (!tool.parameters || typeof tool.parameters !== 'object' || Array.isArray(tool.parameters)) {
      throw new ValidationError(`Invalid parameters schema for tool ${tool.name}: expected a JSON Schema object`);
    }
  }
}

function truncate(text: string): string {
  return text.length <= MAX_TOOL_RESULT_CHARS ? text : `${text.slice(0, MAX_TOOL_RESULT_CHARS)}\n[truncated]`;
}

function parseArguments(raw: string): Record<string, unknown> {
  const parsed: unknown = JSON.parse(raw === '' ? '{}' : raw);
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('arguments must be a JSON object');
  return parsed as Record<string, unknown>;
}

/**
 * The function-calling loop, independent of any provider: adapters pass their
 * own `chat`, so a tracing wrapper that decorates `chat` sees every iteration.
 */
export async function runToolLoop(chat: ChatFn, request: ToolLoopRequest): Promise<ToolLoopResult> {
  const maxIterations = request.maxIterations ?? DEFAULT_MAX_ITERATIONS;
  if (!Number.isInteger(maxIterations) || maxIterations < 1 || maxIterations > MAX_ITERATIONS_LIMIT) {
    throw new ValidationError(`Invalid maxIterations: ${maxIterations} (an integer from 1 to ${MAX_ITERATIONS_LIMIT})`);
  }
  validateTools(request.tools);
  if (typeof request.executeTool !== 'function') throw new ValidationError('Invalid tool loop: executeTool is required');

  const known = new Set(request.tools.map((t) => t.name));
  const messages: ChatMessage[] = [...request.messages];
  const records: ToolCallRecord[] = [];
  let usage = emptyUsage();
  let lastText = '';
  let model = '';

  for (let iteration = 1; iteration <= maxIterations; iteration++) {
    const answer = await chat(messages, { ...request.options, tools: request.tools });
    usage = addUsage(usage, answer.usage);
    model = answer.model;
    if (answer.text) lastText = answer.text;
    if (answer.toolCalls.length === 0) {
      return { text: answer.text, stoppedBy: 'final-answer', iterations: iteration, toolCalls: records, usage, model };
    }
    messages.push({ role: 'assistant', content: answer.text, toolCalls: answer.toolCalls });
    for (const [index, call] of answer.toolCalls.entries()) {
      let content: string;
      try {
        if (index >= MAX_TOOL_CALLS_PER_ANSWER) throw new Error(`too many tool calls in one answer (at most ${MAX_TOOL_CALLS_PER_ANSWER}); repeat the rest`);
        if (!known.has(call.name)) throw new Error(`unknown tool ${call.name}; available: ${[...known].join(', ')}`);
        let args: Record<string, unknown>;
        try {
          args = parseArguments(call.arguments);
        } catch (e) {
          throw new Error(`invalid arguments JSON: ${(e as Error).message}`);
        }
        const result = await request.executeTool({ id: call.id, name: call.name, arguments: args });
        content = truncate(typeof result === 'string' ? result : JSON.stringify(result ?? null));
        records.push({ name: call.name, arguments: call.arguments, ok: true });
      } catch (e) {
        const error = e instanceof Error ? e.message : String(e);
        content = JSON.stringify({ error });
        records.push({ name: call.name, arguments: call.arguments, ok: false, error });
      }
      messages.push({ role: 'tool', toolCallId: call.id, content });
    }
  }
  return { text: lastText, stoppedBy: 'max-iterations', iterations: maxIterations, toolCalls: records, usage, model };
}
