import { validateChat } from '../../domain/llm/chat-validation.js';
import type { ChatMessage, ChatOptions } from '../../domain/llm/llm-types.js';
import { answerTool, DEFAULT_MAX_OUTPUT_TOKENS, toTurns, type AnswerTool, type Turn } from './block-conversation.js';

/** A tool as the block APIs declare it, before each adapter's wire names. */
export interface BlockTool {
  name: string;
  description: string;
  schema: Record<string, unknown>;
}

/** One chat call as the block APIs (Anthropic Messages, Bedrock Converse) take it, in neutral terms. */
export interface BlockRequest {
  model: string;
  maxTokens: number;
  system: string;
  turns: Turn[];
  /** The forced answer tool of a schema-checked answer, when it is used. */
  forced?: AnswerTool;
  /** The forced answer tool alone, or the functions offered. */
  tools: BlockTool[];
  /** Both APIs cap temperature at 1. */
  temperature?: number;
}

/**
 * What both block adapters do before they translate: validate the call
 * (before any I/O), pick the model and the output limit these APIs require,
 * split the conversation into turns, and choose between the forced answer
 * tool and the functions offered.
 */
export function blockRequest(messages: ChatMessage[], options: ChatOptions, defaults: { model: string; forceAnswerTool: boolean }): BlockRequest {
  validateChat(messages, options);
  const forced = answerTool(options, defaults.forceAnswerTool);
  return {
    model: options.model ?? defaults.model,
    maxTokens: options.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
    ...toTurns(messages),
    ...(forced ? { forced } : {}),
    tools: forced ? [forced] : (options.tools ?? []).map((t) => ({ name: t.name, description: t.description, schema: t.parameters })),
    ...(options.temperature !== undefined ? { temperature: Math.min(options.temperature, 1) } : {}),
  };
}
