import { ValidationError } from '../errors.js';
import type { ChatMessage, ChatOptions } from './llm-types.js';
import { validateTools } from './tool-loop.js';

const MODEL = /^[\x21-\x7e]{1,200}$/;
/** Messages per call: room for a full tool loop (50 answers of 32 calls each) plus the prompt; more means it has lost its way. */
export const MAX_MESSAGES = 2000;

/** Checks a chat call before it leaves the process. */
export function validateChat(messages: ChatMessage[], options: ChatOptions = {}): void {
  if (!Array.isArray(messages) || messages.length === 0) throw new ValidationError('Invalid messages: at least one message is required');
  if (messages.length > MAX_MESSAGES) throw new ValidationError(`Invalid messages: at most ${MAX_MESSAGES} per call`);
  messages.forEach((m, i) => {
    const role = (m as { role?: unknown })?.role;
    if (role !== 'system' && role !== 'user' && role !== 'assistant' && role !== 'tool') {
      throw new ValidationError(`Invalid messages[${i}].role: ${JSON.stringify(role)}`);
    }
    if (typeof m.content !== 'string') throw new ValidationError(`Invalid messages[${i}].content: expected a string`);
    if (m.role === 'tool' && (typeof m.toolCallId !== 'string' || m.toolCallId === '')) {
      throw new ValidationError(`Invalid messages[${i}].toolCallId: required for a tool message`);
    }
  });
  if (options.model !== undefined && (typeof options.model !== 'string' || !MODEL.test(options.model))) {
    throw new ValidationError('Invalid model: a name without spaces, 1 to 200 characters');
  }
  const t = options.temperature;
  if (t !== undefined && (typeof t !== 'number' || !(t >= 0 && t <= 2))) throw new ValidationError('Invalid temperature: a number from 0 to 2');
  const max = options.maxOutputTokens;
  if (max !== undefined && (!Number.isInteger(max) || max < 1 || max > 200000)) {
    throw new ValidationError('Invalid maxOutputTokens: an integer from 1 to 200000');
  }
  if (options.responseFormat !== undefined && options.responseFormat !== 'text' && options.responseFormat !== 'json') {
    throw new ValidationError('Invalid responseFormat: text or json');
  }
  if (options.tools !== undefined) validateTools(options.tools);
}
