import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../infrastructure/config/config.js';
import { createEmbedder, createVectorStore } from '../../infrastructure/vector/vector-adapters.js';
import { HashingEmbedder } from '../../infrastructure/embeddings/hashing-embedder.js';
import { OpenAiEmbedder } from '../../infrastructure/embeddings/openai-embedder.js';
import { EmbeddedVectorStore } from '../../infrastructure/vector/embedded-vector-store.js';
import { QdrantVectorStore } from '../../infrastructure/vector/qdrant-vector-store.js';
import { CapturingLogger } from '../support/capturing-logger.js';

describe('vector and embeddings config', () => {
  it('defaults to the embedded store under SVC_DATA_DIR and the local lexical embedder', () => {
    const { vector } = loadConfig({ SVC_DATA_DIR: 'data' }, '/srv');
    expect(vector).to.deep.equal({ store: { kind: 'embedded', dir: '/srv/data/vectors' }, embeddings: { kind: 'hashing', dimension: 384 } });
    expect(createVectorStore(vector, new CapturingLogger())).to.be.instanceOf(EmbeddedVectorStore);
    expect(createEmbedder(vector)).to.be.instanceOf(HashingEmbedder);
  });

  it('chooses Qdrant when QDRANT_URL is set and OpenAI when OPENAI_API_KEY is set', () => {
    const { vector } = loadConfig({
      QDRANT_URL: 'https://qdrant.example:6333',
      QDRANT_API_KEY: 'qk',
      OPENAI_API_KEY: 'sk-x',
      OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
      SVC_EMBEDDINGS_MODEL: 'nomic-embed-text',
      SVC_EMBEDDINGS_DIMENSIONS: '768',
    });
    expect(vector.store).to.deep.equal({ kind: 'qdrant', url: 'https://qdrant.example:6333', apiKey: 'qk' });
    expect(vector.embeddings).to.deep.equal({
      kind: 'openai',
      apiKey: 'sk-x',
      baseURL: 'http://127.0.0.1:11434/v1',
      model: 'nomic-embed-text',
      dimension: 768,
    });
    expect(createVectorStore(vector, new CapturingLogger())).to.be.instanceOf(QdrantVectorStore);
    const embedder = createEmbedder(vector);
    expect(embedder).to.be.instanceOf(OpenAiEmbedder);
    expect(embedder.info()).to.deep.equal({ provider: 'openai', model: 'nomic-embed-text', dimension: 768, kind: 'semantic' });
  });

  it('keeps embeddings local with a chat server other than OpenAI unless asked (SVC_EMBEDDINGS_PROVIDER or SVC_EMBEDDINGS_MODEL)', () => {
    const vllm = { OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: 'http://vllm.ai:8000/v1' };
    expect(loadConfig(vllm).vector.embeddings).to.deep.equal({ kind: 'hashing', dimension: 384 });
    expect(loadConfig({ ...vllm, SVC_EMBEDDINGS_PROVIDER: 'openai' }).vector.embeddings).to.deep.equal({
      kind: 'openai',
      apiKey: 'sk-x',
      baseURL: 'http://vllm.ai:8000/v1',
      model: 'text-embedding-3-small',
    });
    expect(loadConfig({ ...vllm, SVC_EMBEDDINGS_MODEL: 'bge-small' }).vector.embeddings).to.include({ kind: 'openai', model: 'bge-small' });
    expect(loadConfig({ OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: 'https://api.openai.com/v1/' }).vector.embeddings).to.include({ kind: 'openai' });
  });

  it('uses OpenAI defaults for base URL and model', () => {
    expect(loadConfig({ OPENAI_API_KEY: 'sk-x' }).vector.embeddings).to.deep.equal({
      kind: 'openai',
      apiKey: 'sk-x',
      baseURL: 'https://api.openai.com/v1',
      model: 'text-embedding-3-small',
    });
  });

  it('names the variable of a bad or contradictory value', () => {
    expect(() => loadConfig({ QDRANT_URL: 'qdrant:6333' })).to.throw(ConfigError, /QDRANT_URL must be an http\(s\) URL/);
    expect(() => loadConfig({ QDRANT_URL: 'https://u:p@q.example' })).to.throw(ConfigError, /QDRANT_URL must not carry credentials.*QDRANT_API_KEY/);
    expect(() => loadConfig({ QDRANT_API_KEY: 'k' })).to.throw(ConfigError, /QDRANT_API_KEY is set but QDRANT_URL is not/);
    expect(() => loadConfig({ SVC_EMBEDDINGS_MODEL: 'm' })).to.throw(ConfigError, /SVC_EMBEDDINGS_MODEL is set but OPENAI_API_KEY is not/);
    expect(() => loadConfig({ OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'ftp://x' })).to.throw(ConfigError, /OPENAI_BASE_URL must be an http\(s\) URL/);
    expect(() => loadConfig({ SVC_EMBEDDINGS_DIMENSIONS: '4' })).to.throw(ConfigError, /SVC_EMBEDDINGS_DIMENSIONS must be between 8 and 65536/);
    expect(() => loadConfig({ OPENAI_API_KEY: 'k', SVC_EMBEDDINGS_DIMENSIONS: 'many' })).to.throw(
      ConfigError,
      /SVC_EMBEDDINGS_DIMENSIONS must be a whole number/,
    );
  });
});
