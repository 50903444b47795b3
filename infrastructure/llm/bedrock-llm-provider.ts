import { ConverseCommand, type BedrockRuntimeClient, type ContentBlock, type ConverseCommandOutput, type Tool } from '@aws-sdk/client-bedrock-runtime';
import type { ChatMessage, ChatOptions, ChatResult } from '../../domain/llm/llm-types.js';
import { DependencyError, DomainError } from '../../domain/errors.js';
import type { LlmProvider, LlmStatus } from '../../domain/ports/llm-provider.js';
import { scrubText } from '../../domain/security/scrub-credentials.js';
import type { AwsConfig } from '../config/aws-config.js';
import { credentialSettings } from './aws-credentials.js';
import { bedrockClient, bedrockFailure } from './bedrock-client.js';
import { blockResult, type Block } from './block-conversation.js';
import { blockRequest } from './block-request.js';
import { llmFailure, type FailureContext } from './llm-failure.js';
import { blockProviderStatus } from './provider-status.js';

export interface BedrockLlmOptions {
  aws: AwsConfig;
  /** A model id or an inference-profile id (or ARN). */
  model: string;
  timeoutMs: number;
  /** Retries of throttling and 5xx with the SDK's standard backoff. */
  maxRetries: number;
  /** false: schema-checked answers are asked for by the instructions only (models without forced tool choice). */
  forceAnswerTool: boolean;
  headers?: Record<string, string>;
}

function toWire(b: Block): ContentBlock {
  switch (b.type) {
    case 'text':
      return { text: b.text };
    case 'tool_use':
      return { toolUse: { toolUseId: b.id, name: b.name, input: b.input as never } };
    case 'tool_result':
      return { toolResult: { toolUseId: b.id, content: [{ text: b.content }] } };
  }
}

function fromWire(content: readonly ContentBlock[] | undefined): Block[] {
  const out: Block[] = [];
  for (const b of content ?? []) {
    if (b.text !== undefined) out.push({ type: 'text', text: b.text });
    else if (b.toolUse) {
      const input = b.toolUse.input as unknown;
      const args = input && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
      out.push({ type: 'tool_use', id: b.toolUse.toolUseId ?? '', name: b.toolUse.name ?? '', input: args });
    }
  }
  return out;
}

/** LlmProvider over the Bedrock Converse API (@aws-sdk/client-bedrock-runtime, SigV4 with the default credential chain): translation only. */
export class BedrockLlmProvider implements LlmProvider {
  private readonly client: BedrockRuntimeClient;
  private readonly awsSecrets: () => string[];
  private readonly endpoint: string;

  constructor(private readonly options: BedrockLlmOptions) {
    ({ client: this.client, secrets: this.awsSecrets } = bedrockClient({
      aws: options.aws,
      timeoutMs: options.timeoutMs,
      maxRetries: options.maxRetries,
      headers: options.headers,
    }));
    this.endpoint = options.aws.bedrockEndpoint ?? `https://bedrock-runtime.${options.aws.region}.amazonaws.com`;
  }

  status(): LlmStatus {
    return blockProviderStatus('bedrock', this.options);
  }

  async chat(messages: ChatMessage[], options: ChatOptions = {}): Promise<ChatResult> {
    const r = blockRequest(messages, options, this.options);
    const tools: Tool[] = r.tools.map((t) => ({ toolSpec: { name: t.name, description: t.description, inputSchema: { json: t.schema as never } } }));
    let out: ConverseCommandOutput;
    try {
      out = await this.client.send(
        new ConverseCommand({
          modelId: r.model,
          messages: r.turns.map((t) => ({ role: t.role, content: t.blocks.map(toWire) })),
          ...(r.system ? { system: [{ text: r.system }] } : {}),
          inferenceConfig: { maxTokens: r.maxTokens, ...(r.temperature !== undefined ? { temperature: r.temperature } : {}) },
          ...(tools.length ? { toolConfig: { tools, ...(r.forced ? { toolChoice: { tool: { name: r.forced.name } } } : {}) } } : {}),
        }),
        options.signal ? { abortSignal: AbortSignal.any([options.signal]) } : {},
      );
    } catch (e) {
      throw this.toError(e, r.model);
    }
    const u = out.usage;
    return blockResult(
      {
        blocks: fromWire(out.output?.message?.content),
        stopReason: out.stopReason,
        usage: { input: u?.inputTokens, output: u?.outputTokens, cacheRead: u?.cacheReadInputTokens, cacheWrite: u?.cacheWriteInputTokens },
        model: r.model,
      },
      r.forced,
      r.maxTokens,
    );
  }

  private toError(e: unknown, model: string): DomainError {
    if (e instanceof DomainError) return e;
    const secrets = [...Object.values(this.options.headers ?? {}), ...this.awsSecrets()];
    const ctx: FailureContext = {
      baseUrl: this.endpoint,
      model,
      timeoutMs: this.options.timeoutMs,
      secrets,
      settings: { credential: credentialSettings(this.options.aws), endpoint: 'AWS_REGION (or AWS_ENDPOINT_URL_BEDROCK_RUNTIME)', notFound: 'no access to it' },
    };
    const f = bedrockFailure(e);
    if (f.kind === 'credentials') {
      // the chain's own text can name files and tokens: only what to check is said
      return new DependencyError('llm', `No usable AWS credentials for Bedrock; check ${credentialSettings(this.options.aws)}`);
    }
    if (f.kind !== 'status') return llmFailure(f, ctx);
    // Bedrock says 403 for an unknown model as often as for missing access: both name the model
    if (f.status === 403)
      return new DependencyError(
        'llm',
        `Bedrock denied access to model "${model}" (403): ${scrubText(f.detail, secrets).slice(0, 500)}; check SVC_LLM_MODEL, the model access and the role's bedrock:InvokeModel permission`,
      );
    return llmFailure(f, ctx);
  }
}
