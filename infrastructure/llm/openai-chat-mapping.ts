import type OpenAI from 'openai';
import type { ChatMessage, ChatResult, TokenUsage, ToolCall, ToolSpec } from '../../domain/llm/llm-types.js';

type Params = OpenAI.Chat.Completions.ChatCompletionMessageParam;

export function toOpenAiMessages(messages: ChatMessage[]): Params[] {
  return messages.map((m): Params => {
    switch (m.role) {
      case 'assistant':
        return m.toolCalls?.length
          ? {
              role: 'assistant',
              content: m.content || null,
              tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
            }
          : { role: 'assistant', content: m.content };
      case 'tool':
        return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
      default:
        return { role: m.role, content: m.content };
    }
  });
}

export function toOpenAiTools(tools: ToolSpec[]): OpenAI.Chat.Completions.ChatCompletionTool[] {
  return tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
}

interface UsageLike {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number; cache_creation_tokens?: number } | null;
  /** Some OpenAI-compatible proxies in front of Anthropic models report cache writes here. */
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

export function toUsage(u: UsageLike | undefined | null): TokenUsage {
  const d = u?.prompt_tokens_details ?? {};
  return {
    inputTokens: u?.prompt_tokens ?? 0,
    outputTokens: u?.completion_tokens ?? 0,
    cacheReadTokens: d.cached_tokens ?? u?.cache_read_input_tokens ?? 0,
    cacheCreationTokens: d.cache_write_tokens ?? d.cache_creation_tokens ?? u?.cache_creation_input_tokens ?? 0,
  };
}

export function toChatResult(completion: OpenAI.Chat.Completions.ChatCompletion, requestedModel: string): ChatResult | undefined {
  const choice = completion.choices?.[0];
  if (!choice) return undefined;
  const toolCalls: ToolCall[] = (choice.message.tool_calls ?? [])
    .filter((c) => c.type === 'function')
    .map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments ?? '' }));
  return {
    text: choice.message.content ?? '',
    toolCalls,
    usage: toUsage(completion.usage as UsageLike | undefined),
    model: completion.model || requestedModel,
    finishReason: choice.finish_reason ?? '',
  };
}
