import type OpenAI from 'openai';
import { validateChat } from '../../domain/llm/chat-validation.js';
import type { ChatMessage, ChatOptions, ChatResult, StructuredOutputMode } from '../../domain/llm/llm-types.js';
import { DependencyError } from '../../domain/errors.js';
import type { LlmProvider, LlmStatus } from '../../domain/ports/llm-provider.js';
import { toChatResult, toOpenAiMessages, toOpenAiTools } from './openai-chat-mapping.js';
import type { FailureContext } from './llm-failure.js';
import { OPENAI_SETTINGS, toLlmError } from './openai-errors.js';
import { openAiSdk } from './openai-sdk.js';
import { headerNames, PROVIDER_HINTS } from './provider-status.js';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAiLlmOptions {
  apiKey: string;
  /** undefined: api.openai.com. */
  baseUrl?: string;
  model: string;
  timeoutMs: number;
  maxRetries: number;
  /**
   * What a structured-answer request asks the backend for: `json_schema`
   * (OpenAI, vLLM, recent Ollama), `json_object` (JSON mode only), or `none`
   * (the instructions alone ask for JSON). The answer is checked either way.
   */
  structuredOutput?: StructuredOutputMode;
  /** SVC_LLM_HEADERS: sent with every request; the values are secrets. */
  headers?: Record<string, string>;
}

export type { StructuredOutputMode } from '../../domain/llm/llm-types.js';

/** LlmProvider over any OpenAI-compatible chat completions endpoint (non-streaming). */
export class OpenAiLlmProvider implements LlmProvider {
  private readonly baseUrl: string;
  private readonly hosted: boolean;
  private sdkClient: OpenAI | undefined;

  constructor(private readonly options: OpenAiLlmOptions) {
    this.baseUrl = (options.baseUrl ?? OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, '');
    this.hosted = new URL(this.baseUrl).hostname === 'api.openai.com';
  }

  /** The SDK's client, made on the first call (the SDK loads then, not at start). */
  private get client(): OpenAI {
    // Every setting is passed explicitly so the SDK reads nothing from the environment itself.
    return (this.sdkClient ??= new (openAiSdk().OpenAI)({
      apiKey: this.options.apiKey,
      baseURL: this.baseUrl,
      organization: null,
      project: null,
      webhookSecret: null,
      timeout: this.options.timeoutMs,
      maxRetries: this.options.maxRetries,
      logLevel: 'off',
      defaultHeaders: this.options.headers,
    }));
  }

  status(): LlmStatus {
    return {
      configured: true,
      provider: this.hosted ? 'openai' : 'openai-compatible',
      model: this.options.model,
      hint: PROVIDER_HINTS.openai,
      ...headerNames(this.options.headers),
      structuredOutput: this.options.structuredOutput ?? 'json_schema',
    };
  }

  async chat(messages: ChatMessage[], options: ChatOptions = {}): Promise<ChatResult> {
    validateChat(messages, options);
    const model = options.model ?? this.options.model;
    const ctx: FailureContext = {
      baseUrl: this.baseUrl,
      model,
      timeoutMs: this.options.timeoutMs,
      secrets: [this.options.apiKey, ...Object.values(this.options.headers ?? {})],
      settings: OPENAI_SETTINGS,
    };
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    // The SDK is given a per-call signal: it adds an abort listener to the signal it gets and never
    // removes it, and a run's signal lives through all of the run's calls (25 listeners piled up).
    try {
      completion = await this.client.chat.completions.create(
        {
          model,
          messages: toOpenAiMessages(messages),
          ...(options.tools?.length ? { tools: toOpenAiTools(options.tools) } : {}),
          ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
          // api.openai.com wants max_completion_tokens (reasoning models refuse max_tokens); most compatible servers know only max_tokens
          ...(options.maxOutputTokens !== undefined
            ? this.hosted
              ? { max_completion_tokens: options.maxOutputTokens }
              : { max_tokens: options.maxOutputTokens }
            : {}),
          ...this.responseFormat(options.responseFormat),
        },
        options.signal ? { signal: AbortSignal.any([options.signal]) } : undefined,
      );
    } catch (e) {
      throw toLlmError(e, ctx);
    }
    const result = toChatResult(completion, model);
    if (!result) throw new DependencyError('llm', `AI provider returned no choices for model "${model}"`);
    return result;
  }

  private responseFormat(format: ChatOptions['responseFormat']): Pick<OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming, 'response_format'> {
    if (format === undefined || format === 'text') return {};
    const mode = this.options.structuredOutput ?? 'json_schema';
    if (mode === 'none') return {};
    if (mode === 'json_object' || format === 'json') return { response_format: { type: 'json_object' } };
    const { name, schema } = format.jsonSchema;
    return { response_format: { type: 'json_schema', json_schema: { name, schema, strict: false } } };
  }
}
