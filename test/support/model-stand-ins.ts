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
 * The providers an HTTP suite runs against: the one it is assigned (the suites
 * share the three out between them), or all three with SVC_TEST_PROVIDERS=all.
 * What every provider must do on the real app is the provider contract suite,
 * test/http/model-backends-canary.test.ts, which always runs all three.
 */
export const suiteProviders = (assigned: Provider): readonly Provider[] => (process.env.SVC_TEST_PROVIDERS === 'all' ? PROVIDERS : [assigned]);

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

interface Scripted {
  readonly requests: Json[];
  fallback: Script;
  script(...replies: Script[]): unknown;
  close(): Promise<void>;
}

/** A scripted server of one provider with the settings that point svc at it. */
class StandIn<S extends Scripted> implements ModelStandIn {
  constructor(
    readonly provider: Provider,
    readonly modelName: string,
    readonly server: S,
    private readonly settings: () => Record<string, string>,
    private readonly credentials: () => string[],
  ) {}
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
    return { SVC_LLM_PROVIDER: this.provider, SVC_LLM_MODEL: this.modelName, ...this.settings() };
  }
  secrets() {
    return this.credentials();
  }
  close() {
    return this.server.close();
  }
}

/** Bedrock through the IRSA path: a web identity token file, the STS stand-in, then SigV4-signed Converse calls. */
export class BedrockStandIn extends StandIn<BedrockConverseServer> {
  private readonly dir = mkdtempSync(path.join(tmpdir(), 'svc-irsa-'));
  readonly tokenFile = path.join(this.dir, 'token');
  constructor(
    server: BedrockConverseServer,
    readonly sts: AwsStsServer,
  ) {
    super(
      'bedrock',
      'anthropic.claude-test-v1:0',
      server,
      () => ({
        AWS_REGION: server.region,
        AWS_ENDPOINT_URL_BEDROCK_RUNTIME: server.url,
        AWS_ENDPOINT_URL_STS: sts.url,
        AWS_ROLE_ARN: sts.roleArn,
        AWS_WEB_IDENTITY_TOKEN_FILE: this.tokenFile,
      }),
      // the web identity tokens, and the temporary keys STS issued to svc (the static pair is not svc's unless a test gives it)
      () => [...sts.validTokens, ...sts.issued, ...[...server.keys.values()].filter((k) => k.sessionToken !== undefined).map((k) => k.secretAccessKey)],
    );
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
  override async close() {
    await this.server.close();
    await this.sts.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export async function startModelStandIn(provider: Provider): Promise<ModelStandIn> {
  switch (provider) {
    case 'openai': {
      const s = await OpenAiChatServer.start();
      return new StandIn(
        'openai',
        'gpt-test',
        s,
        () => ({ OPENAI_API_KEY: s.apiKey, OPENAI_BASE_URL: s.baseUrl }),
        () => [s.apiKey],
      );
    }
    case 'anthropic': {
      const s = await AnthropicMessagesServer.start();
      return new StandIn(
        'anthropic',
        'claude-test',
        s,
        () => ({ ANTHROPIC_API_KEY: s.apiKey, ANTHROPIC_BASE_URL: s.baseUrl }),
        () => [s.apiKey],
      );
    }
    case 'bedrock':
      return BedrockStandIn.start();
  }
}
