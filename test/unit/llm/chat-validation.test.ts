import { expect } from 'chai';
import { ValidationError } from '../../../domain/errors.js';
import { MAX_MESSAGES, validateChat, validateTools } from '../../../domain/llm/chat-validation.js';
import type { ChatMessage, ChatOptions, ToolSpec } from '../../../domain/llm/llm-types.js';
import { validationCases } from '../../support/validation-cases.js';

const user: ChatMessage = { role: 'user', content: 'why is web down?' };
const tool = (name: string, parameters: unknown = { type: 'object' }) => ({ name, description: 'd', parameters }) as ToolSpec;

describe('llm: the checks on a chat call before it leaves the process', () => {
  const chat = (messages: ChatMessage[], options: ChatOptions) => () => validateChat(messages, options);
  validationCases([
    ['one user message', chat([user], {})],
    ['a tool answer with its call id', chat([user, { role: 'tool', content: '{}', toolCallId: 'c1' } as ChatMessage], {})],
    ['a JSON schema response', chat([user], { responseFormat: { jsonSchema: { name: 'answer_v1', schema: { type: 'object' } } } })],
    ['a temperature of 2', chat([user], { temperature: 2, maxOutputTokens: 200000, model: 'gpt-4o-mini' })],
    ['no messages', chat([], {}), /at least one message/],
    ['a role the providers do not know', chat([{ role: 'developer', content: 'x' } as unknown as ChatMessage], {}), /messages\[0\]\.role/],
    ['content that is not text', chat([{ role: 'user', content: ['x'] } as unknown as ChatMessage], {}), /messages\[0\]\.content/],
    ['a tool answer without its call id', chat([user, { role: 'tool', content: '{}', toolCallId: '' } as ChatMessage], {}), /messages\[1\]\.toolCallId/],
    ['a model name with a space', chat([user], { model: 'gpt 4' }), /Invalid model/],
    ['a temperature above 2', chat([user], { temperature: 2.1 }), /temperature/],
    ['a temperature that is NaN', chat([user], { temperature: NaN }), /temperature/],
    ['zero output tokens', chat([user], { maxOutputTokens: 0 }), /maxOutputTokens/],
    ['a schema response without a name', chat([user], { responseFormat: { jsonSchema: { name: 'a b', schema: {} } } } as ChatOptions), /responseFormat/],
    ['a response format of another kind', chat([user], { responseFormat: 'xml' } as unknown as ChatOptions), /responseFormat/],
    ['a tool with a name providers refuse', chat([user], { tools: [tool('get resource')] }), /Invalid tool name/],
  ]);

  it(`bounds the messages of one call at ${MAX_MESSAGES}`, () => {
    expect(() => validateChat(Array.from({ length: MAX_MESSAGES }, () => user))).to.not.throw();
    expect(() => validateChat(Array.from({ length: MAX_MESSAGES + 1 }, () => user))).to.throw(ValidationError, /at most 2000/);
  });

  it('the functions offered: unique names, an object schema each', () => {
    expect(() => validateTools([tool('get_resource'), tool('list-events')])).to.not.throw();
    expect(() => validateTools([tool('a'), tool('a')])).to.throw(ValidationError, 'Duplicate tool name: a');
    expect(() => validateTools([tool('a', [])])).to.throw(ValidationError, /parameters schema for tool a/);
    expect(() => validateTools([tool('x'.repeat(65))])).to.throw(ValidationError, /Invalid tool name/);
    expect(() => validateTools({} as never)).to.throw(ValidationError, /expected an array/);
  });
});
