import type Anthropic from '@anthropic-ai/sdk';
import type { ChatMessage, ChatOptions, ChatResult } from '../../domain/llm/llm-types.js';
import { DependencyError, DomainError } from '../../domain/errors.js';
import type { LlmProvider, LlmStatus } from '../../domain/ports/llm-provider.js';
import { blockResult, type Block } from './block-conversation.js';
import { blockRequest } from './block-request.js';
import { llmFailure, type FailureContext } from './llm-failure.js';
import { blockProviderStatus } from './provider-status.js';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
const SETTINGS = { credential: 'ANTHROPIC_API_KEY', endpoint: 'ANTHROPIC_BASE_URL', notFound: 'no Messages endpoint' } as const;

export interface AnthropicLlmOptions {
  apiKey: string;
  /** undefined: api.anthropic.com. */
  baseUrl?: string;
  model: string;
  timeoutMs: number;
  /** Retries of 408/409/429/5xx (529 overloaded included), honouring retry-after. */
  maxRetries: number;
  /** false: schema-checked answers are asked for by the instructions only, no forced tool. */
  forceAnswerTool: boolean;
  /** SVC_LLM_HEADERS: sent with every request; the values are secrets. */
  headers?: Record<string, string>;
}

type WireBlock = Anthropic.Messages.ContentBlockParam;

function toWire(b: Block): WireBlock {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: b.text };
    case 'tool_use':
      return { type: 'tool_use', id: b.id, name: b.name, input: b.input };
    case 'tool_result':
      return { type: 'tool_result', tool_use_id: b.id, content: b.content };
  }
}

function fromWire(content: readonly Anthropic.Messages.ContentBlock[]): Block[] {
  const out: Block[] = [];
  for (const b of content ?? []) {
    if (b.type === 'text') out.push({ type: 'text', text: b.text });
    else if (b.type === 'tool_use') out.push({ type: 'tool_use', id: b.id, name: b.name, input: (b.input ?? {}) as Record<string, unknown> });
  }
  return out;
}

/**
 * The API takes a key only as `x-api-key`, but @anthropic-ai/sdk 1.x sends an
 * `apiKey` as `Authorization: Bearer` (its OAuth form). The default headers
 * come after the SDK's own, so they put the key where the API reads it and
 * drop the bearer (null removes a header); SVC_LLM_HEADERS still win, so a
 * gateway that wants its own Authorization gets it.
 */
function keyHeaders(apiKey: string, extra: Record<string, string> = {}): Record<string, string | null> {
  return { authorization: null, 'x-api-key': apiKey, ...extra };
}

/** The Anthropic SDK, loaded by the first call (a configured start does not load it). */
const anthropicSdk = () => require('@anthropic-ai/sdk') as typeof import('@anthropic-ai/sdk');

/** LlmProvider over Anthropic's Messages API (@anthropic-ai/sdk, non-streaming): translation only. */
export class AnthropicLlmProvider implements LlmProvider {
  private readonly baseUrl: string;
  private sdkClient: Anthropic | undefined;

  constructor(private readonly options: AnthropicLlmOptions) {
    this.baseUrl = (options.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL).replace(/\/+$/, '');
  }

  /** The SDK's client, made on the first call (the SDK loads then, not at start). */
  private get client(): Anthropic {
    // Every setting is explicit so the SDK reads no credential from the environment; svc traces the calls itself.
    return (this.sdkClient ??= new (anthropicSdk().Anthropic)({
      apiKey: this.options.apiKey,
      baseURL: this.baseUrl,
      webhookKey: null,
      timeout: this.options.timeoutMs,
      maxRetries: this.options.maxRetries,
      logLevel: 'off',
      openTelemetry: false,
      defaultHeaders: keyHeaders(this.options.apiKey, this.options.headers),
    }));
  }

  status(): LlmStatus {
    return blockProviderStatus('anthropic', this.options);
  }

  async chat(messages: ChatMessage[], options: ChatOptions = {}): Promise<ChatResult> {
    const r = blockRequest(messages, options, this.options);
    const tools: Anthropic.Messages.Tool[] = r.tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.schema as Anthropic.Messages.Tool.InputSchema,
    }));
    let message: Anthropic.Messages.Message;
    try {
      message = await this.client.messages.create(
        {
          model: r.model,
          max_tokens: r.maxTokens,
          messages: r.turns.map((t) => ({ role: t.role, content: t.blocks.map(toWire) })),
          ...(r.system ? { system: r.system } : {}),
          ...(tools.length ? { tools } : {}),
          ...(r.forced ? { tool_choice: { type: 'tool', name: r.forced.name } } : {}),
          ...(r.temperature !== undefined ? { temperature: r.temperature } : {}),
        },
        // a per-call signal: the SDK never removes the abort listener it adds (see the OpenAI adapter)
        options.signal ? { signal: AbortSignal.any([options.signal]) } : undefined,
      );
    } catch (e) {
      throw this.toError(e, r.model);
    }
    const u = message.usage;
    return blockResult(
      {
        blocks: fromWire(message.content),
        stopReason: message.stop_reason,
        usage: { input: u?.input_tokens, output: u?.output_tokens, cacheRead: u?.cache_read_input_tokens, cacheWrite: u?.cache_creation_input_tokens },
        model: message.model || r.model,
      },
      r.forced,
      r.maxTokens,
    );
  }

  private toError(e: unknown, model: string): DomainError {
    if (e instanceof DomainError) return e;
    const ctx: FailureContext = {
      baseUrl: this.baseUrl,
      model,
      timeoutMs: this.options.timeoutMs,
      secrets: [this.options.apiKey, ...Object.values(this.options.headers ?? {})],
      settings: SETTINGS,
    };
    const { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } = anthropicSdk();
    if (e instanceof APIConnectionTimeoutError) return llmFailure({ kind: 'timeout' }, ctx);
    if (e instanceof APIUserAbortError) return llmFailure({ kind: 'aborted' }, ctx);
    if (e instanceof APIConnectionError) return llmFailure({ kind: 'unreachable' }, ctx);
    if (e instanceof APIError) {
      // Anthropic's error body: { type: 'error', error: { type, message } }
      const body = e.error as { error?: { message?: unknown } } | undefined;
      const detail = typeof body?.error?.message === 'string' ? body.error.message : '';
      return llmFailure({ kind: 'status', status: e.status, detail }, ctx);
    }
    return new DependencyError('llm', 'AI provider call failed');
  }
}
