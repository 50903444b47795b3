import { ValidationError } from '../errors.js';
import type { ChatMessage, ChatOptions } from './llm-types.js';
import type { ToolSpec } from './llm-types.js';

const MODEL = /^[\x21-\x7e]{1,200}$/;
const FUNCTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const SCHEMA_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** The functions offered to a model: names the providers accept, no duplicates, an object schema each. */
export function validateTools(tools: ToolSpec[]): void {
  if (!Array.isArray(tools)) throw new ValidationError('Invalid tools: expected an array');
  const seen = new Set<string>();
  for (const tool of tools) {
    if (!tool || typeof tool.name !== 'string' || !FUNCTION_NAME.test(tool.name)) {
      throw new ValidationError(`Invalid tool name: ${JSON.stringify(tool?.name)} (1 to 64 of A-Z a-z 0-9 _ -)`);
    }
    if (seen.has(tool.name)) throw new ValidationError(`Duplicate tool name: ${tool.name}`);
    seen.add(tool.name);
    if (!tool.parameters || typeof tool.parameters !== 'object' || Array.isArray(tool.parameters)) {
      throw new ValidationError(`Invalid parameters schema for tool ${tool.name}: expected a JSON Schema object`);
    }
  }
}
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
  const format = options.responseFormat;
  if (format !== undefined && format !== 'text' && format !== 'json') {
    const js = typeof format === 'object' && format !== null ? format.jsonSchema : undefined;
    if (!js || typeof js.name !== 'string' || !SCHEMA_NAME.test(js.name) || !js.schema || typeof js.schema !== 'object') {
      throw new ValidationError('Invalid responseFormat: text, json, or { jsonSchema: { name, schema } }');
    }
  }
  if (options.tools !== undefined) validateTools(options.tools);
}
