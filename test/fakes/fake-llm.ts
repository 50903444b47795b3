import { DependencyError } from '../../domain/errors.js';
import type { ChatMessage, ChatOptions, ChatResult, ToolCall } from '../../domain/llm/llm-types.js';
import type { LlmProvider, LlmStatus } from '../../domain/ports/llm-provider.js';

/** One scripted answer: text, function calls, an error to throw, 'hang' (until the signal aborts), or a function of the request. */
export type FakeReply =
  | string
  | { text?: string; toolCalls?: { name: string; arguments: string | Record<string, unknown> }[]; usage?: Partial<ChatResult['usage']> }
  | Error
  | 'hang'
  | ((messages: ChatMessage[], options: ChatOptions) => FakeReply);

/**
 * A scripted model that `implements LlmProvider`: each `chat` takes the next
 * reply (the fallback once the script is used up). It records what it was
 * sent, deep-copied, so tests can check the context it saw.
 */
export class FakeLlm implements LlmProvider {
  readonly calls: { messages: ChatMessage[]; options: Omit<ChatOptions, 'signal'> }[] = [];
  private n = 0;

  constructor(
    private readonly script: FakeReply[] = [],
    private readonly fallback: FakeReply = new DependencyError('llm', 'FakeLlm: script used up'),
  ) {}

  status(): LlmStatus {
    return { configured: true, provider: 'fake', model: 'fake-model' };
  }

  push(...replies: FakeReply[]): this {
    this.script.push(...replies);
    return this;
  }

  async chat(messages: ChatMessage[], options: ChatOptions = {}): Promise<ChatResult> {
    const { signal, ...rest } = options;
    this.calls.push(JSON.parse(JSON.stringify({ messages, options: rest })));
    let reply: FakeReply = this.script.shift() ?? this.fallback;
    while (typeof reply === 'function') reply = reply(messages, options);
    if (reply instanceof Error) throw reply;
    if (reply === 'hang') {
      return new Promise((_, reject) => {
        signal?.addEventListener('abort', () => reject(new DependencyError('llm', 'AI provider request was aborted')), { once: true });
      });
    }
    const r = typeof reply === 'string' ? { text: reply } : reply;
    const toolCalls: ToolCall[] = (r.toolCalls ?? []).map((c, i) => ({
      id: `call_${++this.n}_${i}`,
      name: c.name,
      arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
    }));
    return {
      text: r.text ?? '',
      toolCalls,
      usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheCreationTokens: 0, ...r.usage },
      model: 'fake-model',
      finishReason: toolCalls.length ? 'tool_calls' : 'stop',
    };
  }
}
