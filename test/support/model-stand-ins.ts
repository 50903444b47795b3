import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AnthropicMessagesServer } from './anthropic-messages-server.js';
import { AwsStsServer } from './aws-sts-server.js';
import { BedrockConverseServer } from './bedrock-converse-server.js';
import { OpenAiChatServer } from './openai-chat-server.js';
import type { Script } from './scripted-model.js';

type Json = Record<string, any>;

export const PROVIDERS = ['openai', 'anthropic', 'bedrock'] as const;
export type Provider = (typeof PROVIDERS)[number];

/**
 * One scripted model behind one provider's wire API: the same neutral
 * script and requests (see Script) whatever the provider, the environment
 * that points svc at it, and every credential it handed out (for canary checks).
 */
export interface ModelStandIn {
  readonly provider: Provider;
  /** The model id to configure (SVC_LLM_MODEL). */
  readonly modelName: string;
  readonly requests: Json[];
  fallback: Script;
  script(...replies: Script[]): this;
  /** SVC_LLM_PROVIDER and the provider's settings. */
  env(): Record<string, string>;
  /** Every credential svc was given or fetched: none may appear in answers, logs or spans. */
  secrets(): string[];
  close(): Promise<void>;
}

class OpenAiStandIn implements ModelStandIn {
  readonly provider = 'openai';
  readonly modelName = 'gpt-test';
  constructor(readonly server: OpenAiChatServer) {}
  get requests() {
    return this.server.requests;
  }
  get fallback() {
    return this.server.fallback;
  }
  set fallback(s: Script) {
    this.server.fallback = s;
  }
  script(...r: Script[]) {
    this.server.script(...r);
    return this;
  }
  env() {
    return { SVC_LLM_PROVIDER: 'openai', OPENAI_API_KEY: this.server.apiKey, OPENAI_BASE_URL: this.server.baseUrl, SVC_LLM_MODEL: this.modelName };
  }
  secrets() {
    return [this.server.apiKey];
  }
  close() {
    return this.server.close();
  }
}

class AnthropicStandIn implements ModelStandIn {
  readonly provider = 'anthropic';
  readonly modelName = 'claude-test';
  constructor(readonly server: AnthropicMessagesServer) {}
  get requests() {
    return this.server.requests;
  }
  get fallback() {
    return this.server.fallback;
  }
  set fallback(s: Script) {
    this.server.fallback = s;
  }
  script(...r: Script[]) {
    this.server.script(...r);
    return this;
  }
  env() {
    return { SVC_LLM_PROVIDER: 'anthropic', ANTHROPIC_API_KEY: this.server.apiKey, ANTHROPIC_BASE_URL: this.server.baseUrl, SVC_LLM_MODEL: this.modelName };
  }
  secrets() {
    return [this.server.apiKey];
  }
  close() {
    return this.server.close();
  }
}

/** Bedrock through the IRSA path: a web identity token file, the STS stand-in, then SigV4-signed Converse calls. */
export class BedrockStandIn implements ModelStandIn {
  readonly provider = 'bedrock';
  readonly modelName = 'anthropic.claude-test-v1:0';
  private readonly dir = mkdtempSync(path.join(tmpdir(), 'svc-irsa-'));
  readonly tokenFile = path.join(this.dir, 'token');
  constructor(
    readonly server: BedrockConverseServer,
    readonly sts: AwsStsServer,
  ) {
    this.rotateToken();
  }
  static async start(): Promise<BedrockStandIn> {
    const server = await BedrockConverseServer.start();
    return new BedrockStandIn(server, await AwsStsServer.start(server.keys));
  }
  /** Writes a new projected token, as the kubelet does; returns it. */
  rotateToken(): string {
    const token = this.sts.newToken();
    writeFileSync(this.tokenFile, token);
    return token;
  }
  get requests() {
    return this.server.requests;
  }
  get fallback() {
    return this.server.fallback;
  }
  set fallback(s: Script) {
    this.server.fallback = s;
  }
  script(...r: Script[]) {
    this.server.script(...r);
    return this;
  }
  env() {
    return {
      SVC_LLM_PROVIDER: 'bedrock',
      SVC_LLM_MODEL: this.modelName,
      AWS_REGION: this.server.region,
      AWS_ENDPOINT_URL_BEDROCK_RUNTIME: this.server.url,
      AWS_ENDPOINT_URL_STS: this.sts.url,
      AWS_ROLE_ARN: this.sts.roleArn,
      AWS_WEB_IDENTITY_TOKEN_FILE: this.tokenFile,
    };
  }
  secrets() {
    // the web identity tokens, and the temporary keys STS issued to svc (the static pair is not svc's unless a test gives it)
    const temporary = [...this.server.keys.values()].filter((k) => k.sessionToken !== undefined).map((k) => k.secretAccessKey);
    return [...this.sts.validTokens, ...this.sts.issued, ...temporary];
  }
  async close() {
    await this.server.close();
    await this.sts.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export async function startModelStandIn(provider: Provider): Promise<ModelStandIn> {
  switch (provider) {
    case 'openai':
      return new OpenAiStandIn(await OpenAiChatServer.start());
    case 'anthropic':
      return new AnthropicStandIn(await AnthropicMessagesServer.start());
    case 'bedrock':
      return BedrockStandIn.start();
  }
}
