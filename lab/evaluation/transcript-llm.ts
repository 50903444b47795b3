import { currentCluster } from '../../application/cluster/current-cluster.js';
import { DependencyError } from '../../domain/errors.js';
import type { ChatMessage, ChatOptions, ChatResult, TokenUsage } from '../../domain/llm/llm-types.js';
import type { LlmProvider, LlmStatus } from '../../domain/ports/llm-provider.js';
import { replyText, type TranscriptReply } from '../../domain/evaluation/transcript.js';
import type { ModelAnswer } from './proposals.js';

/** The schema name svc asked the answer to fit, when it asked for one. */
const schemaOf = (options: ChatOptions) => (typeof options.responseFormat === 'object' ? options.responseFormat.jsonSchema.name : undefined);

/** What svc sent the model on one call, kept for the safety scorer (no Secret value may be in it). */
export interface SentRequest {
  text: string;
}

/** A rough token count for text whose usage nobody reported: a quarter of its characters. */
export const estimateTokens = (text: string) => Math.ceil(text.length / 4);

const requestText = (messages: ChatMessage[], options: ChatOptions) =>
  messages.map((m) => `${m.content}${m.role === 'assistant' && m.toolCalls ? JSON.stringify(m.toolCalls) : ''}`).join('\n') +
  (options.tools ? JSON.stringify(options.tools) : '');

/** Most function-result text kept per case for the readFrom check (the newest is dropped beyond it). */
const MAX_TOOL_TEXT = 2_000_000;

/** Every model a case talks to records what it was sent, the function results it saw, its structured answers and the usage it reported. */
export abstract class ObservedLlm implements LlmProvider {
  readonly sent: SentRequest[] = [];
  /** The structured answers it gave (schema name and text): the analysis and plan hold what it proposed. */
  readonly answers: ModelAnswer[] = [];
  private readonly toolTexts = new Set<string>();
  private toolChars = 0;
  readonly usage: TokenUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 };
  /** The first failure of the model itself (a transcript used up, the provider's error), which svc may have turned into a partial answer. */
  failure?: string;
  abstract status(): LlmStatus;
  abstract chat(messages: ChatMessage[], options?: ChatOptions): Promise<ChatResult>;

  /** Which of these tokens a function result carried to the model (a tool message, not the prompt or the issue). */
  tokensRead(tokens: readonly string[]): string[] {
    const texts = [...this.toolTexts];
    return tokens.filter((t) => texts.some((x) => x.includes(t)));
  }

  protected answered(schema: string | undefined, text: string): void {
    // the cluster svc asked it for (its scope), so a proposal is judged where it would go
    const cluster = currentCluster();
    if (schema) this.answers.push({ name: schema, text, ...(cluster ? { cluster } : {}) });
  }

  protected observe(messages: ChatMessage[], options: ChatOptions): string {
    for (const m of messages)
      if (m.role === 'tool' && !this.toolTexts.has(m.content) && this.toolChars + m.content.length <= MAX_TOOL_TEXT) {
        this.toolTexts.add(m.content);
        this.toolChars += m.content.length;
      }
    const text = requestText(messages, options);
    this.sent.push({ text });
    return text;
  }

  protected count(u: TokenUsage): void {
    this.usage.inputTokens += u.inputTokens;
    this.usage.outputTokens += u.outputTokens;
    this.usage.cacheReadTokens += u.cacheReadTokens;
    this.usage.cacheCreationTokens += u.cacheCreationTokens;
  }
}

/**
 * The scripted model of `svc eval --replay`: answers each call with the next
 * reply of a scenario's transcript; a transcript used up fails the call (and
 * so the case) with a DependencyError saying so. Usage is the transcript's,
 * or estimated from the characters sent and answered.
 */
export class ReplayLlm extends ObservedLlm {
  /** The replies played, by index. */
  private readonly taken = new Set<number>();
  /** Whether the replies name their cluster: then each call takes the next reply of its own cluster. */
  private readonly keyed: boolean;

  constructor(
    private readonly replies: readonly TranscriptReply[],
    private readonly model = 'replay',
  ) {
    super();
    this.keyed = replies.some((r) => r.cluster !== undefined);
  }

  /** The next reply not played yet: of the calling cluster (svc's cluster scope) when the replies name theirs. */
  private take(): TranscriptReply | undefined {
    const cluster = currentCluster();
    const i = this.replies.findIndex((r, j) => !this.taken.has(j) && (!this.keyed || r.cluster === cluster));
    if (i < 0) return undefined;
    this.taken.add(i);
    return this.replies[i];
  }

  status(): LlmStatus {
    return { configured: true, provider: 'replay', model: this.model };
  }

  /** How many replies svc asked for. */
  get used(): number {
    return this.taken.size;
  }

  async chat(messages: ChatMessage[], options: ChatOptions = {}): Promise<ChatResult> {
    const sent = this.observe(messages, options);
    const reply = this.take();
    if (!reply) {
      const whose = this.keyed ? ` for cluster ${currentCluster() ?? '(none)'}` : '';
      this.failure ??= `transcript exhausted: svc asked for answer ${this.sent.length}${whose}, the transcript holds ${this.replies.length}`;
      throw new DependencyError('llm', this.failure);
    }
    const text = replyText(reply);
    this.answered(schemaOf(options), text);
    const toolCalls = (reply.toolCalls ?? []).map((c, i) => ({
      id: `call_${this.used}_${i}`,
      name: c.name,
      arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
    }));
    const usage = {
      inputTokens: reply.usage?.prompt ?? estimateTokens(sent),
      outputTokens: reply.usage?.completion ?? estimateTokens(text + toolCalls.map((c) => c.name + c.arguments).join('')),
      cacheReadTokens: 0,
      cacheCreationTokens: 0,
    };
    this.count(usage);
    return { text, toolCalls, usage, model: this.model, finishReason: toolCalls.length ? 'tool_calls' : 'stop' };
  }
}

/** The configured model, observed; with `record`, each answer is kept as a transcript reply (`svc eval --record`). */
export class RecordingLlm extends ObservedLlm {
  readonly replies: TranscriptReply[] = [];

  constructor(private readonly inner: LlmProvider) {
    super();
  }

  status(): LlmStatus {
    return this.inner.status();
  }

  async chat(messages: ChatMessage[], options: ChatOptions = {}): Promise<ChatResult> {
    this.observe(messages, options);
    const result = await this.inner.chat(messages, options).catch((err: unknown) => {
      this.failure ??= `the model failed: ${err instanceof Error ? err.message : String(err)}`;
      throw err;
    });
    this.count(result.usage);
    this.answered(schemaOf(options), result.text);
    // in a case on several clusters, the cluster svc asked it for (its scope): a replay plays the reply there
    const cluster = currentCluster();
    const reply: TranscriptReply = { usage: { prompt: result.usage.inputTokens, completion: result.usage.outputTokens }, ...(cluster ? { cluster } : {}) };
    if (result.toolCalls.length) reply.toolCalls = result.toolCalls.map((c) => ({ name: c.name, arguments: parsedOrRaw(c.arguments) }));
    if (result.text || !result.toolCalls.length) {
      const json = options.responseFormat && options.responseFormat !== 'text' ? parsedObject(result.text) : undefined;
      if (json) reply.json = json;
      else reply.content = result.text;
    }
    this.replies.push(reply);
    return result;
  }
}

function parsedObject(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function parsedOrRaw(text: string): Record<string, unknown> | string {
  return parsedObject(text) ?? text;
}
