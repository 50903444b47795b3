import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DependencyError } from '../../domain/errors.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import { ConfigError, loadConfig } from '../../infrastructure/config/config.js';
import { parseLlmConfig } from '../../infrastructure/config/llm-config.js';
import { createLlmProvider } from '../../infrastructure/llm/create-llm-provider.js';
import { createEmbedder } from '../../infrastructure/vector/vector-adapters.js';
import { AnthropicMessagesServer } from '../support/anthropic-messages-server.js';
import { BedrockStandIn, PROVIDERS, startModelStandIn, type ModelStandIn } from '../support/model-stand-ins.js';
import { OpenAiCompatibleServer } from '../support/openai-compatible-server.js';

const HEADER_VALUE = 'gw-secret-value-0123456789abcdef';
const HEADERS = JSON.stringify({ 'X-Gateway-Key': HEADER_VALUE, 'X-Team': 'platform' });
const schema = { type: 'object', properties: { verdict: { type: 'string' } }, required: ['verdict'] };
const ask = (llm: LlmProvider) =>
  llm.chat(
    [
      { role: 'system', content: 'Answer with JSON.' },
      { role: 'user', content: 'Is it fine?' },
    ],
    { responseFormat: { jsonSchema: { name: 'verdict', schema } } },
  );
const failure = (p: Promise<unknown>) =>
  p.then(
    () => expect.fail('expected a failure'),
    (e: Error) => e,
  );

/** Request headers as each stand-in saw them. */
function headersSeen(chat: ModelStandIn): Record<string, unknown>[] {
  const s = (chat as unknown as { server: { headers?: unknown[]; raw?: { headers: Record<string, unknown> }[] } }).server;
  return s.raw?.map((r) => r.headers) ?? (s.headers as Record<string, unknown>[]) ?? [];
}

for (const provider of PROVIDERS) {
  describe(`model backend ${provider}: the adapter against its wire stand-in`, () => {
    let chat: ModelStandIn;
    beforeEach(async () => {
      chat = await startModelStandIn(provider);
    });
    afterEach(() => chat.close());
    const llm = (env: Record<string, string> = {}) => createLlmProvider(parseLlmConfig({ ...chat.env(), SVC_LLM_MAX_RETRIES: '0', ...env }));

    it('asks for a schema-checked answer the provider way and returns it as JSON text, usage with cache tokens included', async () => {
      chat.script({ content: '{"verdict":"fine"}', usage: { prompt: 100, completion: 9, cached: 40, cacheWrite: 10 } });
      const result = await ask(llm());
      expect(JSON.parse(result.text)).to.deep.equal({ verdict: 'fine' });
      expect(result.toolCalls).to.deep.equal([]);
      expect(result.finishReason).to.equal('stop');
      expect(result.usage).to.deep.equal({ inputTokens: 100, outputTokens: 9, cacheReadTokens: 40, cacheCreationTokens: 10 });
      // every provider's request reads as a schema-checked one: json_schema, or the single forced answer tool
      expect(chat.requests[0].response_format.json_schema.name).to.equal('verdict');
      expect(chat.requests[0].tools).to.equal(undefined);
    });

    it('maps function calls both ways: tool calls out, results back in the next request', async () => {
      chat.script({ content: 'Looking.', toolCalls: [{ name: 'list_pods', arguments: '{"namespace":"x"}' }] }, { content: 'done' });
      const tools = [{ name: 'list_pods', description: 'List pods', parameters: { type: 'object', properties: { namespace: { type: 'string' } } } }];
      const first = await llm().chat([{ role: 'user', content: 'look' }], { tools });
      expect(first.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)])).to.deep.equal([['list_pods', { namespace: 'x' }]]);
      expect(first.finishReason).to.equal('tool_calls');
      const second = await llm().chat(
        [
          { role: 'user', content: 'look' },
          { role: 'assistant', content: first.text, toolCalls: first.toolCalls },
          { role: 'tool', toolCallId: first.toolCalls[0].id, content: 'pod web-1 Running' },
        ],
        { tools },
      );
      expect(second.text).to.equal('done');
      const sent = chat.requests[1].messages;
      expect(sent.find((m: { role: string }) => m.role === 'tool')).to.deep.include({ tool_call_id: first.toolCalls[0].id, content: 'pod web-1 Running' });
      expect(chat.requests[1].tools.map((t: { function: { name: string } }) => t.function.name)).to.deep.equal(['list_pods']);
    });

    it('prose instead of the forced answer comes back as text for svc to refuse', async () => {
      chat.script({ content: 'It is probably fine, I think.' });
      const result = await ask(llm());
      expect(result.text).to.equal('It is probably fine, I think.');
    });

    it('sends SVC_LLM_HEADERS with every request, lists only their names, and never shows a value in an error', async () => {
      chat.script({ content: 'ok' }, { status: 500, error: { message: `upstream refused header ${HEADER_VALUE}` } });
      const provider = llm({ SVC_LLM_HEADERS: HEADERS });
      expect(provider.status().headers).to.deep.equal(['X-Gateway-Key', 'X-Team']);
      expect(JSON.stringify(provider.status())).not.to.contain(HEADER_VALUE);
      await provider.chat([{ role: 'user', content: 'hi' }]);
      const e = await failure(provider.chat([{ role: 'user', content: 'hi' }]));
      expect(e).to.be.instanceOf(DependencyError);
      expect(e.message).to.contain('(500)').and.not.contain(HEADER_VALUE);
      for (const h of headersSeen(chat)) expect(h).to.include({ 'x-gateway-key': HEADER_VALUE, 'x-team': 'platform' });
    });

    it('a 5xx is retried with the SDK backoff when retries are on', async () => {
      chat.script({ status: 503, error: { message: 'busy' }, retryAfter: 0 }, { content: 'ok' });
      const result = await llm({ SVC_LLM_MAX_RETRIES: '2' }).chat([{ role: 'user', content: 'hi' }]);
      expect(result.text).to.equal('ok');
      expect(chat.requests).to.have.length(2);
    });

    it('a hang ends at SVC_LLM_TIMEOUT_MS with a DependencyError naming the time', async () => {
      chat.script({ hang: true });
      const e = await failure(llm({ SVC_LLM_TIMEOUT_MS: '1000' }).chat([{ role: 'user', content: 'hi' }]));
      expect(e).to.be.instanceOf(DependencyError);
      expect(e.message).to.match(/did not answer|time/);
    });

    it('a wrong credential is refused with a message naming what to check and carrying no secret', async () => {
      const wrong: Record<string, string> =
        provider === 'openai'
          ? { OPENAI_API_KEY: 'sk-wrong-0123456789' }
          : provider === 'anthropic'
            ? { ANTHROPIC_API_KEY: 'sk-ant-wrong-0123456789' }
            : { AWS_ROLE_ARN: '', AWS_WEB_IDENTITY_TOKEN_FILE: '', AWS_ACCESS_KEY_ID: 'AKIAWRONG0123456789', AWS_SECRET_ACCESS_KEY: 'wrong-secret-0123456789' };
      const e = await failure(llm(wrong).chat([{ role: 'user', content: 'hi' }]));
      expect(e).to.be.instanceOf(DependencyError);
      for (const v of [...Object.values(wrong), ...chat.secrets()].filter(Boolean)) expect(e.message).not.to.contain(v);
      expect(e.message).to.match(provider === 'openai' ? /OPENAI_API_KEY/ : provider === 'anthropic' ? /ANTHROPIC_API_KEY/ : /403/);
    });
  });
}

describe('Anthropic specifics', () => {
  let server: AnthropicMessagesServer;
  beforeEach(async () => {
    server = await AnthropicMessagesServer.start();
  });
  afterEach(() => server.close());
  const llm = (retries = '0') =>
    createLlmProvider(
      parseLlmConfig({
        SVC_LLM_PROVIDER: 'anthropic',
        ANTHROPIC_API_KEY: server.apiKey,
        ANTHROPIC_BASE_URL: server.baseUrl,
        SVC_LLM_MODEL: 'claude-test',
        SVC_LLM_MAX_RETRIES: retries,
      }),
    );

  it('sends the anthropic-version header, system apart, max_tokens, and the answer tool forced', async () => {
    server.script({ content: '{"verdict":"fine"}' });
    await ask(llm());
    const { body, headers } = server.raw[0];
    expect(headers['anthropic-version']).to.match(/^\d{4}-\d{2}-\d{2}$/);
    expect(body.system).to.equal('Answer with JSON.');
    expect(body.max_tokens).to.be.a('number');
    expect(body.tool_choice).to.deep.equal({ type: 'tool', name: 'verdict' });
    expect(body.tools[0].input_schema).to.deep.include({ type: 'object' });
  });

  it('sends ANTHROPIC_API_KEY as x-api-key, never as a bearer Authorization', async () => {
    server.script({ content: 'ok' });
    expect((await llm().chat([{ role: 'user', content: 'hi' }])).text).to.equal('ok');
    const { headers } = server.raw[0];
    expect(headers['x-api-key']).to.equal(server.apiKey);
    expect(headers.authorization).to.equal(undefined);
    // a gateway's own Authorization (SVC_LLM_HEADERS) still goes out, next to the key
    const env = { SVC_LLM_PROVIDER: 'anthropic', ANTHROPIC_API_KEY: server.apiKey, ANTHROPIC_BASE_URL: server.baseUrl, SVC_LLM_MODEL: 'claude-test' };
    const gateway = createLlmProvider(parseLlmConfig({ ...env, SVC_LLM_MAX_RETRIES: '0', SVC_LLM_HEADERS: '{"Authorization":"Bearer gw-0123456789"}' }));
    await gateway.chat([{ role: 'user', content: 'hi' }]);
    expect(server.raw[1].headers).to.include({ 'x-api-key': server.apiKey, authorization: 'Bearer gw-0123456789' });
  });

  it('the stand-in answers a request without x-api-key as the API does: 401 authentication_error', async () => {
    const res = await fetch(`${server.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.apiKey}`, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-test', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).to.equal(401);
    expect(res.headers.get('request-id')).to.match(/^req_/);
    expect(await res.json()).to.deep.include({ type: 'error', error: { type: 'authentication_error', message: 'x-api-key header is required' } });
    expect(server.raw).to.have.length(0);
  });

  it('429 and 529 are retried honouring retry-after', async () => {
    server.script(
      { status: 429, error: { message: 'rate limited' }, retryAfter: 1 },
      { status: 529, error: { message: 'Overloaded' }, retryAfter: 0 },
      { content: 'ok' },
    );
    const began = Date.now();
    const result = await llm('2').chat([{ role: 'user', content: 'hi' }]);
    expect(result.text).to.equal('ok');
    expect(Date.now() - began).to.be.at.least(950);
    expect(server.requests).to.have.length(3);
  });

  it('a refusal is a failure saying so; max_tokens before any content too; a cut answer with content goes on as length', async () => {
    server.script({ content: '', finishReason: 'refusal' }, { content: '', finishReason: 'max_tokens' }, { content: 'partial', finishReason: 'max_tokens' });
    expect((await failure(llm().chat([{ role: 'user', content: 'x' }]))).message).to.contain('declined to answer (stop reason refusal)');
    expect((await failure(llm().chat([{ role: 'user', content: 'x' }]))).message).to.contain('output limit');
    expect(await llm().chat([{ role: 'user', content: 'x' }])).to.deep.include({ text: 'partial', finishReason: 'length' });
  });
});

describe('Bedrock specifics: SigV4, IRSA and throttling', () => {
  let b: BedrockStandIn;
  beforeEach(async () => {
    b = await BedrockStandIn.start();
  });
  afterEach(() => b.close());
  const llm = (env: Record<string, string> = {}) => createLlmProvider(parseLlmConfig({ ...b.env(), SVC_LLM_MAX_RETRIES: '0', ...env }));

  it('gets credentials from the web identity token through STS and signs every call with them and the session token', async () => {
    await llm().chat([{ role: 'user', content: 'hi' }]);
    expect(b.sts.tokensSeen).to.have.length(1);
    const signed = b.server.raw[0].headers;
    expect(String(signed.authorization)).to.match(/^AWS4-HMAC-SHA256 Credential=ASIA[0-9A-F]+\/\d{8}\/us-east-1\/bedrock\/aws4_request/);
    expect(signed['x-amz-security-token']).to.equal(b.sts.issued[0]);
  });

  it('picks up a rotated token from the file without a restart once the credentials expire', async () => {
    b.sts.lifetimeMs = 60_000; // inside the SDK's 5-minute refresh window: every call refreshes
    const provider = llm();
    await provider.chat([{ role: 'user', content: 'one' }]);
    const old = [...b.sts.validTokens][0];
    expect(new Set(b.sts.tokensSeen)).to.deep.equal(new Set([old]));
    const before = b.sts.tokensSeen.length;
    const fresh = b.rotateToken();
    b.sts.validTokens.delete(old); // the old token is no longer accepted
    await provider.chat([{ role: 'user', content: 'two' }]);
    const after = b.sts.tokensSeen.slice(before);
    expect(after).to.have.length.above(0);
    expect(new Set(after)).to.deep.equal(new Set([fresh]));
    expect(b.server.raw.at(-1)!.headers['x-amz-security-token']).to.equal(b.sts.issued.at(-1));
  });

  it('EKS Pod Identity: credentials from the agent endpoint with the token file as Authorization, then signed calls', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-pod-identity-'));
    const tokenFile = path.join(dir, 'eks-pod-identity-token');
    const podToken = `pod-identity-${randomBytes(12).toString('hex')}`;
    writeFileSync(tokenFile, podToken);
    const accessKeyId = `ASIA${randomBytes(8).toString('hex').toUpperCase()}`;
    const secretAccessKey = randomBytes(30).toString('base64');
    const sessionToken = `pod-session-${randomBytes(24).toString('hex')}`;
    b.server.keys.set(accessKeyId, { secretAccessKey, sessionToken });
    const seen: (string | undefined)[] = [];
    // the EKS Pod Identity agent's answer: the container credentials format
    const agent = http.createServer((req, res) => {
      seen.push(req.headers.authorization);
      if (req.headers.authorization !== podToken) return res.writeHead(401).end('{"message":"unauthorized"}');
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          AccessKeyId: accessKeyId,
          SecretAccessKey: secretAccessKey,
          Token: sessionToken,
          Expiration: new Date(Date.now() + 3600_000).toISOString(),
        }),
      );
    });
    await new Promise<void>((resolve) => agent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (agent.address() as AddressInfo).port;
      const result = await llm({
        AWS_ROLE_ARN: '',
        AWS_WEB_IDENTITY_TOKEN_FILE: '',
        AWS_CONTAINER_CREDENTIALS_FULL_URI: `http://127.0.0.1:${port}/v1/credentials`,
        AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE: tokenFile,
      }).chat([{ role: 'user', content: 'hi' }]);
      expect(result.text).to.equal('ok');
      expect(seen).to.deep.equal([podToken]);
      expect(b.server.raw.at(-1)!.headers['x-amz-security-token']).to.equal(sessionToken);
      expect(String(b.server.raw.at(-1)!.headers.authorization)).to.contain(`Credential=${accessKeyId}/`);
    } finally {
      agent.closeAllConnections();
      await new Promise<void>((resolve) => agent.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a token STS refuses is a clear failure naming the IRSA settings, with no token in it', async () => {
    writeFileSync(b.tokenFile, 'not-a-valid-token');
    const e = await failure(llm().chat([{ role: 'user', content: 'hi' }]));
    expect(e.message).to.contain('No usable AWS credentials').and.contain('AWS_ROLE_ARN');
    expect(e.message).not.to.contain('not-a-valid-token');
  });

  it('a signature made with the wrong secret is refused by the stand-in (403) and the error carries neither key', async () => {
    const e = await failure(
      llm({
        AWS_ROLE_ARN: '',
        AWS_WEB_IDENTITY_TOKEN_FILE: '',
        AWS_ACCESS_KEY_ID: b.server.accessKeyId,
        AWS_SECRET_ACCESS_KEY: 'the-wrong-secret-0123456789',
      }).chat([{ role: 'user', content: 'hi' }]),
    );
    expect(e.message).to.contain('403').and.contain('signature');
    expect(e.message).not.to.contain('the-wrong-secret').and.not.contain(b.server.secretAccessKey);
    // and with the right secret the same static keys pass
    await llm({
      AWS_ROLE_ARN: '',
      AWS_WEB_IDENTITY_TOKEN_FILE: '',
      AWS_ACCESS_KEY_ID: b.server.accessKeyId,
      AWS_SECRET_ACCESS_KEY: b.server.secretAccessKey,
    }).chat([{ role: 'user', content: 'hi' }]);
  });

  it('throttling is retried; a model that cannot be forced to one tool is asked by instructions with SVC_LLM_STRUCTURED_OUTPUT=none', async () => {
    b.script({ status: 429, error: { message: 'Too many requests' } }, { content: 'ok' });
    expect((await llm({ SVC_LLM_MAX_RETRIES: '2' }).chat([{ role: 'user', content: 'hi' }])).text).to.equal('ok');
    b.script({ content: '{"verdict":"fine"}' });
    const llama = llm({ SVC_LLM_MODEL: 'meta.llama-test-v1:0', SVC_LLM_STRUCTURED_OUTPUT: 'none' });
    // reported, so the callers put the schema and an example in the instructions
    expect(llama.status().structuredOutput).to.equal('none');
    expect(llm().status().structuredOutput).to.equal('json_schema');
    expect(JSON.parse((await ask(llama)).text)).to.deep.equal({ verdict: 'fine' });
    expect(b.server.raw.at(-1)!.body!.toolConfig).to.equal(undefined);
  });

  it('Bedrock embeddings (Titan and Cohere) signed the same way, with the dimension check', async () => {
    const env = { ...b.env(), SVC_EMBEDDINGS_PROVIDER: 'bedrock', SVC_EMBEDDINGS_DIMENSIONS: '64' };
    const titan = createEmbedder(loadConfig(env).vector);
    expect(titan.info()).to.deep.include({ provider: 'bedrock', model: 'amazon.titan-embed-text-v2:0', dimension: 64 });
    expect((await titan.embed(['a', 'b'])).map((v) => v.length)).to.deep.equal([64, 64]);
    const cohere = createEmbedder(loadConfig({ ...env, SVC_EMBEDDINGS_MODEL: 'cohere.embed-english-v3' }).vector);
    expect(await cohere.embed(['a', 'b', 'c'])).to.have.length(3);
    b.server.embeddingDimension = 32;
    const e = await failure(titan.embed(['c']));
    expect(e.message).to.contain('32-dimensional embeddings, expected 64');
  });
});

describe('provider and embeddings configuration', () => {
  it('stops start-up naming what is missing or wrong', () => {
    const refuse = (env: Record<string, string>, re: RegExp) => expect(() => loadConfig(env)).to.throw(ConfigError, re);
    refuse({ SVC_LLM_PROVIDER: 'gemini' }, /SVC_LLM_PROVIDER must be one of openai, anthropic, bedrock/);
    refuse({ SVC_LLM_PROVIDER: 'anthropic', SVC_LLM_MODEL: 'claude-x' }, /ANTHROPIC_API_KEY must be set when SVC_LLM_PROVIDER is anthropic/);
    refuse({ SVC_LLM_PROVIDER: 'anthropic', ANTHROPIC_API_KEY: 'k' }, /SVC_LLM_MODEL must be set when SVC_LLM_PROVIDER is anthropic/);
    refuse({ SVC_LLM_PROVIDER: 'bedrock', SVC_LLM_MODEL: 'm' }, /AWS_REGION must be set for SVC_LLM_PROVIDER=bedrock/);
    refuse(
      { SVC_LLM_PROVIDER: 'bedrock', SVC_LLM_MODEL: 'm', AWS_REGION: 'us-east-1', AWS_ROLE_ARN: 'arn:aws:iam::123456789012:role/x' },
      /AWS_WEB_IDENTITY_TOKEN_FILE must be set together/,
    );
    refuse({ SVC_LLM_HEADERS: '["x"]' }, /SVC_LLM_HEADERS must be a JSON object/);
    refuse({ SVC_LLM_HEADERS: '{"Host":"evil"}' }, /SVC_LLM_HEADERS may not set "Host"/);
    refuse({ SVC_LLM_HEADERS: '{"X-Key":"a\\nb"}' }, /value of "X-Key" must be/);
    refuse({ SVC_EMBEDDINGS_PROVIDER: 'openai' }, /neither OPENAI_API_KEY, SVC_EMBEDDINGS_API_KEY nor SVC_EMBEDDINGS_BASE_URL/);
    expect(() => loadConfig({ SVC_LLM_HEADERS: '{"X-Key":"a\\nb-secret"}' }))
      .to.throw(ConfigError)
      .with.property('message')
      .not.contain('secret');
  });

  it('embeddings on their own server need no key and never get the chat key; without their own URL they default to the chat server', () => {
    const own = loadConfig({ OPENAI_API_KEY: 'sk-chat', SVC_EMBEDDINGS_BASE_URL: 'http://tei.svc:8080/v1', SVC_EMBEDDINGS_MODEL: 'bge-small' }).vector
      .embeddings;
    expect(own).to.deep.equal({ kind: 'openai', baseURL: 'http://tei.svc:8080/v1', model: 'bge-small' });
    const shared = loadConfig({ OPENAI_API_KEY: 'sk-chat', SVC_LLM_HEADERS: HEADERS }).vector.embeddings;
    expect(shared).to.deep.include({ kind: 'openai', apiKey: 'sk-chat', baseURL: 'https://api.openai.com/v1' });
    expect(loadConfig({ SVC_EMBEDDINGS_PROVIDER: 'local', OPENAI_API_KEY: 'sk' }).vector.embeddings.kind).to.equal('hashing');
  });

  it('a TEI-style server without a key serves the embeddings', async () => {
    const tei = await new OpenAiCompatibleServer({ models: { 'bge-small': 16 } }).start();
    try {
      const embedder = createEmbedder(loadConfig({ SVC_EMBEDDINGS_BASE_URL: tei.baseURL, SVC_EMBEDDINGS_MODEL: 'bge-small' }).vector);
      expect((await embedder.embed(['hello'])).map((v) => v.length)).to.deep.equal([16]);
      expect(tei.calls[0].headers.authorization).not.to.contain('sk-');
    } finally {
      await tei.stop();
    }
  });
});
