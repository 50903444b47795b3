import { expect } from 'chai';
import nock from 'nock';
import { DependencyError, ValidationError } from '../../domain/errors.js';
import { OpenAiEmbedder } from '../../infrastructure/embeddings/openai-embedder.js';
import { rejection } from '../support/rejection.js';
import { OpenAiCompatibleServer, vectorFor } from '../support/openai-compatible-server.js';

const KEY = 'sk-test-0123456789abcdef';

describe('OpenAiEmbedder against an OpenAI-compatible server', () => {
  let server: OpenAiCompatibleServer;
  beforeEach(async () => {
    server = await new OpenAiCompatibleServer({ apiKey: KEY, models: { 'test-embed': 8, 'text-embedding-3-small': 1536 } }).start();
  });
  afterEach(() => server.stop());

  const embedder = (extra: Partial<ConstructorParameters<typeof OpenAiEmbedder>[0]> = {}) =>
    new OpenAiEmbedder({ apiKey: KEY, baseURL: server.baseURL, model: 'test-embed', maxRetries: 0, ...extra });

  it('asks for base64, decodes it exactly and keeps the input order', async () => {
    const vectors = await embedder().embed(['first text', 'second text', 'third']);
    expect(vectors).to.deep.equal([vectorFor('first text', 8), vectorFor('second text', 8), vectorFor('third', 8)]);
    expect(server.calls).to.have.length(1);
    expect(server.calls[0].body).to.include({ model: 'test-embed', encoding_format: 'base64' });
    expect(server.calls[0].headers.authorization).to.equal(`Bearer ${KEY}`);
  });

  it('accepts float arrays from a server that ignores encoding_format', async () => {
    server.ignoreEncodingFormat = true;
    expect(await embedder().embed(['plain floats'])).to.deep.equal([vectorFor('plain floats', 8)]);
  });

  it('probes an unknown model once for its dimension', async () => {
    const e = embedder();
    expect(e.info()).to.deep.equal({ provider: 'openai', model: 'test-embed', kind: 'semantic' });
    expect(await e.dimension()).to.equal(8);
    expect(await e.dimension()).to.equal(8);
    expect(server.calls).to.have.length(1);
    expect(e.info().dimension).to.equal(8);
  });

  it('knows the dimension of OpenAI models without a call', async () => {
    const e = embedder({ model: 'text-embedding-3-small' });
    expect(await e.dimension()).to.equal(1536);
    expect(server.calls).to.have.length(0);
    expect((await e.embed(['x']))[0]).to.have.length(1536);
  });

  it('refuses embeddings of another length than configured', async () => {
    const err = await rejection(embedder({ dimension: 16 }).embed(['x']));
    expect(err).to.be.instanceOf(DependencyError);
    expect(err.message).to.match(/8-dimensional embeddings, expected 16/);
  });

  it('refuses non-finite values (NaN carried in base64)', async () => {
    server.transform = (v) => v.map((x, i) => (i === 3 ? NaN : x));
    const err = await rejection(embedder().embed(['x']));
    expect(err).to.be.instanceOf(DependencyError);
    expect(err.message).to.match(/not a list of finite numbers/);
  });

  it('splits large inputs into batches', async () => {
    const texts = ['a', 'b', 'c', 'd', 'e'];
    const vectors = await embedder({ batchSize: 2 }).embed(texts);
    expect(server.calls).to.have.length(3);
    expect(vectors).to.deep.equal(texts.map((t) => vectorFor(t, 8)));
  });

  it('names the variable to fix for an unknown model and a wrong key, without echoing the key', async () => {
    const missing = await rejection(embedder({ model: 'nope' }).embed(['x']));
    expect(missing).to.be.instanceOf(DependencyError);
    expect(missing.message).to.match(/does not know model 'nope' \(404\).*SVC_EMBEDDINGS_MODEL/);
    const wrongKey = 'sk-wrong-key-9876543210';
    const denied = await rejection(new OpenAiEmbedder({ apiKey: wrongKey, baseURL: server.baseURL, model: 'test-embed', maxRetries: 0 }).embed(['x']));
    expect(denied.message).to.match(/\(401\).*OPENAI_API_KEY/);
    expect(denied.message).not.to.include(wrongKey);
  });

  it('validates texts before any call', async () => {
    expect(await rejection(embedder().embed([]))).to.be.instanceOf(ValidationError);
    expect(await rejection(embedder().embed(['ok', '   ']))).to.be.instanceOf(ValidationError);
    expect(server.calls).to.have.length(0);
  });

  it('reports a refused connection as unreachable', async () => {
    const url = server.baseURL;
    await server.stop();
    const err = await rejection(new OpenAiEmbedder({ apiKey: KEY, baseURL: url, model: 'test-embed', maxRetries: 0 }).embed(['x']));
    expect(err).to.be.instanceOf(DependencyError);
    expect(err.message).to.match(/is unreachable: ECONNREFUSED/);
    server = await new OpenAiCompatibleServer().start();
  });
});

describe('OpenAiEmbedder failure handling (nock)', () => {
  const BASE = 'https://embeddings.example.test/v1';
  const ok = (texts: string[]) => ({
    object: 'list',
    model: 'm',
    data: texts.map((t, index) => ({ object: 'embedding', index, embedding: vectorFor(t, 4) })),
    usage: { prompt_tokens: 1, total_tokens: 1 },
  });
  const make = (maxRetries: number, timeoutMs = 5000) => new OpenAiEmbedder({ apiKey: KEY, baseURL: BASE, model: 'm', maxRetries, timeoutMs });

  afterEach(() => nock.cleanAll());

  it('maps a 500 to a DependencyError with the status and a scrubbed message', async () => {
    const scope = nock(BASE)
      .post('/embeddings')
      .reply(500, { error: { message: `upstream exploded near ${KEY}`, type: 'server_error' } });
    const err = await rejection(make(0).embed(['x']));
    expect(err).to.be.instanceOf(DependencyError);
    expect(err.message).to.match(/failed \(500\)/);
    expect(err.message).not.to.include(KEY);
    expect(scope.isDone()).to.equal(true);
  });

  it('retries a 429 and succeeds', async () => {
    const scope = nock(BASE)
      .post('/embeddings')
      .reply(429, { error: { message: 'Rate limit reached', type: 'requests' } }, { 'retry-after-ms': '1' })
      .post('/embeddings')
      .reply(200, ok(['x']));
    expect(await make(2).embed(['x'])).to.deep.equal([vectorFor('x', 4)]);
    expect(scope.isDone()).to.equal(true);
  });

  it('gives up after the retries with a rate-limit error', async () => {
    const scope = nock(BASE)
      .post('/embeddings')
      .times(3)
      .reply(429, { error: { message: 'Rate limit reached' } }, { 'retry-after-ms': '1' });
    const err = await rejection(make(2).embed(['x']));
    expect(err.message).to.match(/rate limiting \(429\) after retries/);
    expect(scope.isDone()).to.equal(true);
  });

  it('times out a silent server', async () => {
    nock(BASE)
      .post('/embeddings')
      .delay(2000)
      .reply(200, ok(['x']));
    const err = await rejection(make(0, 50).embed(['x']));
    expect(err).to.be.instanceOf(DependencyError);
    expect(err.message).to.match(/did not answer within 50 ms/);
  });

  it('refuses an answer with fewer embeddings than texts', async () => {
    nock(BASE)
      .post('/embeddings')
      .reply(200, ok(['only one']));
    const err = await rejection(make(0).embed(['x', 'y']));
    expect(err.message).to.match(/1 embeddings for 2 texts/);
  });
});
