import { expect } from 'chai';
import nock from 'nock';
import { DependencyError, ValidationError } from '../../domain/errors.js';
import { OpenAiLlmProvider } from '../../infrastructure/llm/openai-llm-provider.js';
import { RunBudget } from '../../application/ai/run-budget.js';
import { runToolLoop, type ModelFunction } from '../../application/ai/tool-loop.js';
import { NoopTracer } from '../../infrastructure/tracing/noop-tracer.js';
import { OpenAiChatServer } from '../support/openai-chat-server.js';
import { rejection as failure } from '../support/rejection.js';

describe('OpenAiLlmProvider against an OpenAI-compatible chat server', () => {
  let server: OpenAiChatServer;
  let llm: OpenAiLlmProvider;

  beforeEach(async () => {
    server = await OpenAiChatServer.start();
    llm = new OpenAiLlmProvider({ apiKey: server.apiKey, baseUrl: server.baseUrl, model: 'gpt-test', timeoutMs: 5000, maxRetries: 0 });
  });
  afterEach(() => server.close());

  it('reports its status: configured, compatible provider, model', () => {
    expect(llm.status()).to.deep.include({ configured: true, provider: 'openai-compatible', model: 'gpt-test' });
    expect(llm.status().hint).to.contain('OPENAI_API_KEY').and.contain('OPENAI_BASE_URL');
    expect(llm.status().structuredOutput).to.equal('json_schema');
    const hosted = new OpenAiLlmProvider({ apiKey: 'sk-x', model: 'gpt-4o', timeoutMs: 1000, maxRetries: 0 });
    expect(hosted.status().provider).to.equal('openai');
  });

  it('chats: sends the messages and options, returns text, usage with cache tokens, and the model', async () => {
    server.script({ content: 'hello there', usage: { prompt: 120, completion: 7, cached: 100, cacheWrite: 20 } });
    const r = await llm.chat(
      [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
      { temperature: 0.2, maxOutputTokens: 50, responseFormat: 'json' },
    );
    expect(r).to.deep.equal({
      text: 'hello there',
      toolCalls: [],
      usage: { inputTokens: 120, outputTokens: 7, cacheReadTokens: 100, cacheCreationTokens: 20 },
      model: 'gpt-test-2026-01-01',
      finishReason: 'stop',
    });
    const sent = server.requests[0];
    expect(sent).to.deep.include({ model: 'gpt-test', temperature: 0.2, max_tokens: 50, response_format: { type: 'json_object' } });
    expect(sent.messages).to.deep.equal([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hi' },
    ]);
    expect(sent).not.to.have.property('tools');
  });

  it('describes tools by JSON Schema and returns the tool calls the model makes', async () => {
    server.script({ toolCalls: [{ id: 'call_1', name: 'get_pods', arguments: '{"namespace":"x"}' }] });
    const tools = [
      { name: 'get_pods', description: 'List pods', parameters: { type: 'object', properties: { namespace: { type: 'string' } }, required: ['namespace'] } },
    ];
    const r = await llm.chat([{ role: 'user', content: 'pods?' }], { tools, model: 'other-model' });
    expect(r.toolCalls).to.deep.equal([{ id: 'call_1', name: 'get_pods', arguments: '{"namespace":"x"}' }]);
    expect(r.text).to.equal('');
    expect(r.finishReason).to.equal('tool_calls');
    expect(server.requests[0].model).to.equal('other-model');
    expect(server.requests[0].tools).to.deep.equal([{ type: 'function', function: tools[0] }]);
  });

  it('runs the tool loop over the real SDK: executes calls, feeds results back, sums usage, stops on the answer', async () => {
    server.script(
      {
        toolCalls: [
          { name: 'get_pods', arguments: '{"namespace":"x"}' },
          { name: 'nope', arguments: '{}' },
        ],
        usage: { prompt: 10, completion: 3, cached: 4 },
      },
      (req) => ({ content: `answer from ${req.messages.at(-2).content}`, usage: { prompt: 30, completion: 6, cached: 8 } }),
    );
    const executed: unknown[] = [];
    const getPods: ModelFunction = {
      spec: { name: 'get_pods', description: 'List pods', parameters: { type: 'object' } },
      run: async (args) => (executed.push(args), { pods: ['web-1'] }),
    };
    const budget = new RunBudget({ maxCalls: 5, maxTokens: 100000, timeoutMs: 5000 });
    const r = await runToolLoop(llm, new NoopTracer(), { messages: [{ role: 'user', content: 'what runs in x?' }], functions: [getPods], budget });
    expect(executed).to.deep.equal([{ namespace: 'x' }]);
    expect(r).to.deep.include({ text: 'answer from {"pods":["web-1"]}', stoppedBy: 'final-answer', calls: 2, model: 'gpt-test-2026-01-01' });
    expect(r.usage).to.deep.equal({ inputTokens: 40, outputTokens: 9, cacheReadTokens: 12, cacheCreationTokens: 0 });
    expect(r.functionCalls.map((c) => [c.name, c.ok])).to.deep.equal([
      ['get_pods', true],
      ['nope', false],
    ]);
    const second = server.requests[1].messages;
    expect(second[1].role).to.equal('assistant');
    expect(second[1].tool_calls.map((c: any) => c.function.name)).to.deep.equal(['get_pods', 'nope']);
    expect(second[2]).to.deep.equal({ role: 'tool', tool_call_id: second[1].tool_calls[0].id, content: '{"pods":["web-1"]}' });
    expect(JSON.parse(second[3].content).error).to.match(/unknown function "nope"/);
  });

  it('asks for structured output as SVC_LLM_STRUCTURED_OUTPUT says: json_schema, json_object or nothing', async () => {
    const format = { jsonSchema: { name: 'analysis', schema: { type: 'object', properties: { a: { type: 'string' } } } } };
    for (const [mode, expected] of [
      ['json_schema', { type: 'json_schema', json_schema: { name: 'analysis', schema: format.jsonSchema.schema, strict: false } }],
      ['json_object', { type: 'json_object' }],
      ['none', undefined],
    ] as const) {
      const p = new OpenAiLlmProvider({
        apiKey: server.apiKey,
        baseUrl: server.baseUrl,
        model: 'gpt-test',
        timeoutMs: 5000,
        maxRetries: 0,
        structuredOutput: mode,
      });
      server.script({ content: '{"a":"b"}' });
      expect(p.status().structuredOutput).to.equal(mode);
      await p.chat([{ role: 'user', content: 'JSON please' }], { responseFormat: format });
      expect(server.requests.at(-1)!.response_format, mode).to.deep.equal(expected);
    }
  });

  it('is refused, as by a strict server, when its history holds tool calls but it declares no tools', async () => {
    const history = [
      { role: 'user' as const, content: 'pods?' },
      { role: 'assistant' as const, content: '', toolCalls: [{ id: 'c1', name: 'get_pods', arguments: '{}' }] },
      { role: 'tool' as const, toolCallId: 'c1', content: 'web-1' },
    ];
    const e = await failure(llm.chat(history, { responseFormat: 'json' }));
    expect(e).to.be.instanceOf(DependencyError);
    expect(e.message).to.contain('declares no tools');
    server.script({ content: 'web-1 runs' });
    const tools = [{ name: 'get_pods', description: 'List pods', parameters: { type: 'object', properties: {} } }];
    expect((await llm.chat(history, { tools })).text).to.equal('web-1 runs');
  });

  it('aborts a call when the run deadline signal fires', async () => {
    server.script({ hang: true });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const e = await failure(llm.chat([{ role: 'user', content: 'hi' }], { signal: controller.signal }));
    expect(e).to.be.instanceOf(DependencyError);
    expect(e.message).to.equal('AI provider request was aborted');
  });

  it('maps a refused key to DependencyError without echoing the key', async () => {
    const wrong = 'sk-wrong-key-0123456789abcdef';
    const bad = new OpenAiLlmProvider({ apiKey: wrong, baseUrl: server.baseUrl, model: 'gpt-test', timeoutMs: 5000, maxRetries: 0 });
    const e = await failure(bad.chat([{ role: 'user', content: 'hi' }]));
    expect(e).to.be.instanceOf(DependencyError);
    expect(e.message).to.equal(`AI provider at ${server.baseUrl} refused the API key (401); check OPENAI_API_KEY`);
    expect(e.message + String(e.stack)).not.to.contain(wrong);
  });

  it('maps an unknown model to DependencyError naming SVC_LLM_MODEL', async () => {
    const e = await failure(llm.chat([{ role: 'user', content: 'hi' }], { model: 'gpt-missing' }));
    expect(e).to.be.instanceOf(DependencyError);
    expect(e.message).to.contain('no model "gpt-missing"').and.to.contain('SVC_LLM_MODEL').and.to.contain('does not exist');
  });

  it('validates messages and options before any request', async () => {
    expect(await failure(llm.chat([]))).to.be.instanceOf(ValidationError);
    expect(await failure(llm.chat([{ role: 'robot', content: 'x' } as any]))).to.be.instanceOf(ValidationError);
    expect(await failure(llm.chat([{ role: 'user', content: 'x' }], { temperature: 3 }))).to.be.instanceOf(ValidationError);
    expect(await failure(llm.chat([{ role: 'user', content: 'x' }], { tools: [{ name: 'bad name', description: '', parameters: {} }] }))).to.be.instanceOf(
      ValidationError,
    );
    expect(server.requests).to.have.length(0);
  });
});

describe('OpenAiLlmProvider failures (nock)', () => {
  const base = 'https://llm.example.test';
  const key = 'sk-nock-secret-0123456789';
  const provider = (opts: { timeoutMs?: number; maxRetries?: number } = {}) =>
    new OpenAiLlmProvider({ apiKey: key, baseUrl: `${base}/v1`, model: 'gpt-test', timeoutMs: opts.timeoutMs ?? 5000, maxRetries: opts.maxRetries ?? 0 });
  const ok = {
    id: 'c',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-test',
    choices: [{ index: 0, message: { role: 'assistant', content: 'fine' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };

  afterEach(() => nock.cleanAll());

  it('429: rate limit, with the provider message scrubbed of the key', async () => {
    nock(base)
      .post('/v1/chat/completions')
      .reply(429, { error: { message: `Rate limit reached for key ${key}`, type: 'requests', code: 'rate_limit_exceeded' } });
    const e = await failure(provider().chat([{ role: 'user', content: 'hi' }]));
    expect(e).to.be.instanceOf(DependencyError);
    expect(e.message).to.equal('AI provider rate limit or quota exceeded (429): Rate limit reached for key ***');
  });

  it('5xx: provider failure; retried by the SDK when retries are allowed', async () => {
    nock(base)
      .post('/v1/chat/completions')
      .reply(503, { error: { message: 'overloaded' } });
    const e = await failure(provider().chat([{ role: 'user', content: 'hi' }]));
    expect(e).to.be.instanceOf(DependencyError);
    expect(e.message).to.equal('AI provider failed (503): overloaded');
    nock(base)
      .post('/v1/chat/completions')
      .reply(500, { error: { message: 'boom' } }, { 'retry-after-ms': '1' })
      .post('/v1/chat/completions')
      .reply(200, ok);
    expect((await provider({ maxRetries: 1 }).chat([{ role: 'user', content: 'hi' }])).text).to.equal('fine');
  });

  it('timeout: says how long it waited', async () => {
    nock(base).post('/v1/chat/completions').delay(2000).reply(200, ok);
    const e = await failure(provider({ timeoutMs: 100 }).chat([{ role: 'user', content: 'hi' }]));
    expect(e).to.be.instanceOf(DependencyError);
    expect(e.message).to.equal(`AI provider at ${base}/v1 did not answer within 100 ms`);
  });

  it('no choices: a DependencyError, not a crash', async () => {
    nock(base)
      .post('/v1/chat/completions')
      .reply(200, { ...ok, choices: [] });
    const e = await failure(provider().chat([{ role: 'user', content: 'hi' }]));
    expect(e).to.be.instanceOf(DependencyError);
    expect(e.message).to.contain('returned no choices');
  });
});
