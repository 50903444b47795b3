import { expect } from 'chai';
import { ValidationError } from '../../domain/errors.js';
import type { ChatMessage, ChatOptions, ChatResult, ToolCall } from '../../domain/llm/llm-types.js';
import { MAX_TOOL_CALLS_PER_ANSWER, MAX_TOOL_RESULT_CHARS, runToolLoop } from '../../domain/llm/tool-loop.js';

const usage = { inputTokens: 10, outputTokens: 2, cacheReadTokens: 1, cacheCreationTokens: 0 };
const answer = (text: string, toolCalls: ToolCall[] = []): ChatResult => ({ text, toolCalls, usage, model: 'm', finishReason: toolCalls.length ? 'tool_calls' : 'stop' });
const call = (id: string, name: string, args = '{}'): ToolCall => ({ id, name, arguments: args });
const tools = [{ name: 'probe', description: 'probe', parameters: { type: 'object' } }];

/** A scripted model: each call pops the next answer and records the messages it saw. */
function scripted(...answers: ChatResult[]) {
  const seen: ChatMessage[][] = [];
  const chat = async (messages: ChatMessage[], _options: ChatOptions) => {
    seen.push([...messages]);
    const next = answers.shift();
    if (!next) throw new Error('model called more often than scripted');
    return next;
  };
  return { chat, seen };
}

describe('runToolLoop', () => {
  it('stops at maxIterations when the model keeps calling tools', async () => {
    const model = scripted(...Array.from({ length: 3 }, (_, i) => answer(i === 1 ? 'thinking' : '', [call(`c${i}`, 'probe')])));
    let runs = 0;
    const r = await runToolLoop(model.chat, {
      messages: [{ role: 'user', content: 'go' }],
      tools,
      maxIterations: 3,
      executeTool: async () => ++runs,
    });
    expect(r).to.deep.include({ stoppedBy: 'max-iterations', iterations: 3, text: 'thinking' });
    expect(runs).to.equal(3);
    expect(model.seen).to.have.length(3);
    expect(r.usage).to.deep.equal({ inputTokens: 30, outputTokens: 6, cacheReadTokens: 3, cacheCreationTokens: 0 });
  });

  it('stops at the first answer without tool calls', async () => {
    const model = scripted(answer('', [call('a', 'probe')]), answer('done'), answer('never'));
    const r = await runToolLoop(model.chat, { messages: [{ role: 'user', content: 'go' }], tools, maxIterations: 5, executeTool: async () => 'x' });
    expect(r).to.deep.include({ stoppedBy: 'final-answer', iterations: 2, text: 'done' });
    expect(model.seen).to.have.length(2);
  });

  it('uses a default bound of 10 and refuses bounds outside 1..50 before calling the model', async () => {
    const model = scripted(...Array.from({ length: 10 }, (_, i) => answer('', [call(`c${i}`, 'probe')])));
    const r = await runToolLoop(model.chat, { messages: [{ role: 'user', content: 'go' }], tools, executeTool: async () => 'x' });
    expect(r.iterations).to.equal(10);
    for (const bad of [0, 51, 1.5, -1]) {
      const idle = scripted();
      const e = await runToolLoop(idle.chat, { messages: [], tools, maxIterations: bad, executeTool: async () => 'x' }).catch((err) => err);
      expect(e, String(bad)).to.be.instanceOf(ValidationError);
      expect(idle.seen).to.have.length(0);
    }
  });

  it('reports bad arguments, unknown tools and tool failures to the model instead of throwing', async () => {
    const model = scripted(answer('', [call('a', 'probe', '{not json'), call('b', 'ghost'), call('c', 'probe', '[1]'), call('d', 'probe', '{"fail":true}')]), answer('ok'));
    const r = await runToolLoop(model.chat, {
      messages: [{ role: 'user', content: 'go' }],
      tools,
      executeTool: async (inv) => {
        if (inv.arguments.fail) throw new Error('cluster said no');
        return 'fine';
      },
    });
    const toolMessages = model.seen[1].filter((m) => m.role === 'tool');
    const errors = toolMessages.map((m) => JSON.parse(m.content).error as string);
    expect(errors[0]).to.match(/^invalid arguments JSON: /);
    expect(errors.slice(1)).to.deep.equal([
      'unknown tool ghost; available: probe',
      'invalid arguments JSON: arguments must be a JSON object',
      'cluster said no',
    ]);
    expect(r.toolCalls.map((c) => c.ok)).to.deep.equal([false, false, false, false]);
    expect(r.stoppedBy).to.equal('final-answer');
  });

  it('pairs each tool result with its call id and cuts oversized results', async () => {
    const model = scripted(answer('', [call('id-1', 'probe')]), answer('ok'));
    await runToolLoop(model.chat, { messages: [{ role: 'user', content: 'go' }], tools, executeTool: async () => 'y'.repeat(MAX_TOOL_RESULT_CHARS + 10) });
    const result = model.seen[1].at(-1)!;
    expect(result).to.include({ role: 'tool', toolCallId: 'id-1' });
    expect(result.content).to.have.length(MAX_TOOL_RESULT_CHARS + '\n[truncated]'.length);
  });

  it('runs at most MAX_TOOL_CALLS_PER_ANSWER calls of one answer, answering the rest with an error', async () => {
    const calls = Array.from({ length: MAX_TOOL_CALLS_PER_ANSWER + 2 }, (_, i) => call(`c${i}`, 'probe'));
    const model = scripted(answer('', calls), answer('ok'));
    let runs = 0;
    const r = await runToolLoop(model.chat, { messages: [{ role: 'user', content: 'go' }], tools, executeTool: async () => ++runs });
    expect(runs).to.equal(MAX_TOOL_CALLS_PER_ANSWER);
    const results = model.seen[1].filter((m) => m.role === 'tool');
    expect(results).to.have.length(MAX_TOOL_CALLS_PER_ANSWER + 2);
    expect(JSON.parse(results.at(-1)!.content).error).to.match(/too many tool calls/);
    expect(r.toolCalls.filter((c) => !c.ok)).to.have.length(2);
  });

  it('passes the tools to every model call', async () => {
    const options: ChatOptions[] = [];
    const chat = async (_m: ChatMessage[], o: ChatOptions) => {
      options.push(o);
      return answer('done');
    };
    await runToolLoop(chat, { messages: [{ role: 'user', content: 'go' }], tools, options: { temperature: 0 }, executeTool: async () => '' });
    expect(options[0]).to.deep.equal({ temperature: 0, tools });
  });
});
