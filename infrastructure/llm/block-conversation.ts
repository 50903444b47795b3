import { DependencyError } from '../../domain/errors.js';
import type { ChatMessage, ChatOptions, ChatResult, ToolCall } from '../../domain/llm/llm-types.js';

/**
 * The conversation as the block-based APIs (Anthropic Messages, Bedrock
 * Converse) see it: system text apart, then alternating user/assistant turns
 * of text, tool-use and tool-result blocks. Each adapter maps these blocks to
 * its own wire names; the rules of the mapping live here once.
 */
export type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; id: string; content: string };

export interface Turn {
  role: 'user' | 'assistant';
  blocks: Block[];
}

/** The model's arguments as an object: the block APIs take objects, the port keeps raw JSON text (it may be malformed). */
function argumentsObject(raw: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // the tool loop already answered this call with an error; the model gets back an empty object
  }
  return {};
}

/**
 * System messages joined into one system text; consecutive messages of one
 * role merged into one turn (these APIs require alternation and put tool
 * results in the user turn, before any text); empty text dropped (refused).
 */
export function toTurns(messages: readonly ChatMessage[]): { system: string; turns: Turn[] } {
  const system: string[] = [];
  const turns: Turn[] = [];
  const push = (role: Turn['role'], blocks: Block[]) => {
    const last = turns[turns.length - 1];
    if (last?.role === role) last.blocks.push(...blocks);
    else turns.push({ role, blocks });
  };
  const text = (t: string): Block[] => (t.trim() ? [{ type: 'text', text: t }] : []);
  for (const m of messages) {
    switch (m.role) {
      case 'system':
        system.push(m.content);
        break;
      case 'user':
        push('user', text(m.content));
        break;
      case 'tool':
        push('user', [{ type: 'tool_result', id: m.toolCallId, content: m.content }]);
        break;
      case 'assistant':
        push('assistant', [
          ...text(m.content),
          ...(m.toolCalls ?? []).map((c): Block => ({ type: 'tool_use', id: c.id, name: c.name, input: argumentsObject(c.arguments) })),
        ]);
        break;
    }
  }
  for (const t of turns) if (t.blocks.length === 0) t.blocks.push({ type: 'text', text: '(empty)' });
  // the conversation must open with a user turn
  if (turns[0]?.role !== 'user') turns.unshift({ role: 'user', blocks: [{ type: 'text', text: '(continue)' }] });
  return { system: system.join('\n\n'), turns };
}

/** The single tool a schema-checked answer is forced through: its input schema is the answer's schema. */
export interface AnswerTool {
  name: string;
  description: string;
  schema: Record<string, unknown>;
}

/**
 * Tool-forced structured output: only for a JSON-schema answer, with an
 * object schema, when no functions are offered (forcing one tool would hide
 * them). Otherwise the instructions alone ask for JSON; svc checks either way.
 */
export function answerTool(options: ChatOptions, enabled: boolean): AnswerTool | undefined {
  const format = options.responseFormat;
  if (!enabled || format === undefined || typeof format === 'string' || options.tools?.length) return undefined;
  const { name, schema } = format.jsonSchema;
  if (schema.type !== 'object') return undefined;
  const { $schema: _ignored, ...rest } = schema;
  return { name, description: 'Give your answer by calling this tool exactly once; its input is the answer.', schema: rest };
}

/**
 * The answer's text and function calls. The forced answer tool's input is
 * the answer text (JSON), not a function call; a model that answered in prose
 * instead keeps its prose, which svc's schema check then refuses.
 */
export function fromBlocks(blocks: readonly Block[], forced: AnswerTool | undefined): { text: string; toolCalls: ToolCall[]; answered: boolean } {
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  let answer: string | undefined;
  for (const b of blocks) {
    if (b.type === 'text') texts.push(b.text);
    else if (b.type === 'tool_use') {
      if (forced && b.name === forced.name && answer === undefined) answer = JSON.stringify(b.input ?? {});
      else toolCalls.push({ id: b.id, name: b.name, arguments: JSON.stringify(b.input ?? {}) });
    }
  }
  return { text: answer ?? texts.join(''), toolCalls, answered: answer !== undefined };
}

/** The port's finish reasons (OpenAI's words) for the block APIs' stop reasons. */
export function finishReason(stop: string | null | undefined, answered: boolean): string {
  switch (stop) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return answered ? 'stop' : 'tool_calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'content_filter';
    default:
      return stop ?? '';
  }
}

/** Output-token limit when the caller sets none: these APIs require one. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 8192;

/**
 * A refusal (or a guardrail) is a failure with its reason, not an empty
 * answer; an answer cut at the output limit before any content is one too.
 * A cut answer with content goes on ('length'): svc's checks judge it.
 */
export function unusableAnswer(
  stop: string | null | undefined,
  answer: { text: string; toolCalls: ToolCall[] },
  model: string,
  maxTokens: number,
): string | undefined {
  if (stop === 'refusal' || stop === 'guardrail_intervened' || stop === 'content_filtered')
    return `The model "${model}" declined to answer (stop reason ${stop})`;
  if ((stop === 'max_tokens' || stop === 'model_context_window_exceeded') && !answer.text.trim() && answer.toolCalls.length === 0) {
    return `The model "${model}" reached its output limit (${maxTokens} tokens) before answering (stop reason ${stop})`;
  }
  return undefined;
}

/** One block-API answer as the adapter read it off the wire. */
export interface BlockAnswer {
  blocks: Block[];
  stopReason: string | null | undefined;
  /** The API's own counts: input without the cached tokens, which come apart. */
  usage: { input?: number; output?: number; cacheRead?: number | null; cacheWrite?: number | null } | undefined;
  model: string;
}

/** The port's result of a block-API answer, or the DependencyError of an unusable one (a refusal, a cut before any content). */
export function blockResult(a: BlockAnswer, forced: AnswerTool | undefined, maxTokens: number): ChatResult {
  const answer = fromBlocks(a.blocks, forced);
  const unusable = unusableAnswer(a.stopReason, answer, a.model, maxTokens);
  if (unusable) throw new DependencyError('llm', unusable);
  const cacheRead = a.usage?.cacheRead ?? 0;
  const cacheCreation = a.usage?.cacheWrite ?? 0;
  return {
    text: answer.text,
    toolCalls: answer.toolCalls,
    // both APIs leave cached tokens out of their input count; the port's count includes them
    usage: {
      inputTokens: (a.usage?.input ?? 0) + cacheRead + cacheCreation,
      outputTokens: a.usage?.output ?? 0,
      cacheReadTokens: cacheRead,
      cacheCreationTokens: cacheCreation,
    },
    model: a.model,
    finishReason: finishReason(a.stopReason, answer.answered),
  };
}
