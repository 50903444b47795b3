import { z } from 'zod';
import { ExecutionError } from '../../domain/errors.js';
import type { ChatMessage, ChatOptions } from '../../domain/llm/llm-types.js';
import { answerExcerpt, MAX_ANSWER_CHARS, parseStructuredAnswer } from '../../domain/llm/structured-answer.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import { DeadlineReached, type RunBudget } from './run-budget.js';
import { answerShapeInstructions } from './templates/answer-shape.js';

export interface StructuredRequest<T> {
  messages: ChatMessage[];
  schema: z.ZodType<T>;
  /** Schema name sent to the backend: 1..64 of [A-Za-z0-9_-]. */
  name: string;
  /** A literal answer that fits `schema` (a unit test checks it): shown to the model when the backend is not sent the schema. */
  example: T;
  /** What the answer is, for the error a caller sees ("the remediation analysis"). */
  what: string;
  budget: RunBudget;
  options?: Omit<ChatOptions, 'tools' | 'signal' | 'responseFormat'>;
}

/** Why a structured answer could not be had: the caller decides whether that is an error or a partial result. */
export class StructuredAnswerError extends ExecutionError {}

/**
 * Asks for a JSON answer that fits `schema` (response_format json_schema,
 * json_object or none, as the adapter is set; without json_schema the
 * instructions carry the schema and the example), checks it, and asks once more
 * with the problems fed back when it does not fit. A second miss is a 500
 * EXECUTION_ERROR saying what was wrong with a short excerpt of the answer.
 * Budget exhaustion before a usable answer is a StructuredAnswerError naming the limit.
 */
export async function askStructured<T>(llm: LlmProvider, request: StructuredRequest<T>): Promise<T> {
  const { budget } = request;
  const jsonSchema = z.toJSONSchema(request.schema, { unrepresentable: 'any' }) as Record<string, unknown>;
  const mode = llm.status().structuredOutput ?? 'json_schema';
  const messages = mode === 'json_schema' ? [...request.messages] : withAnswerShape(request.messages, answerShapeInstructions(jsonSchema, request.example));
  let problem = '';
  let excerpt = '';
  for (let attempt = 1; attempt <= 2; attempt++) {
    const limit = budget.exhausted();
    if (limit)
      throw new StructuredAnswerError(`No usable ${request.what}: ${budget.describe(limit)}${problem ? ` (the last answer was unusable: ${problem})` : ''}`);
    let text: string;
    try {
      const answer = await budget.race(
        llm.chat(messages, { ...request.options, responseFormat: { jsonSchema: { name: request.name, schema: jsonSchema } }, signal: budget.signal }),
      );
      budget.record(answer.usage);
      text = answer.text;
    } catch (e) {
      if (e instanceof DeadlineReached || budget.signal.aborted) {
        throw new StructuredAnswerError(`No usable ${request.what}: ${budget.describe('deadline')}`);
      }
      budget.recordFailedCall();
      throw e;
    }
    const parsed = parseStructuredAnswer(text, request.schema, MAX_ANSWER_CHARS);
    if (parsed.ok) return parsed.value;
    problem = parsed.problem;
    excerpt = answerExcerpt(text);
    messages.push(
      { role: 'assistant', content: text.slice(0, 2000) },
      {
        role: 'user',
        content: `Your answer could not be used: ${problem}. Answer again with only one JSON object that fits the required schema, with no other text.`,
      },
    );
  }
  throw new ExecutionError(`The AI provider's ${request.what} was unusable after one retry: ${problem}. Start of the answer: "${excerpt}"`);
}

/** The messages with the answer's shape appended to the instructions (the system message, or a new one first). */
function withAnswerShape(messages: ChatMessage[], shape: string): ChatMessage[] {
  const [first, ...rest] = messages;
  if (first?.role === 'system') return [{ role: 'system', content: `${first.content}\n\n${shape}` }, ...rest];
  return [{ role: 'system', content: shape }, ...messages];
}
