import { expect } from 'chai';
import { ValidationError } from '../../domain/errors.js';
import { HashingEmbedder } from '../../infrastructure/embeddings/hashing-embedder.js';
import { rejection } from '../support/rejection.js';

const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);

describe('HashingEmbedder', () => {
  const e = new HashingEmbedder(384);

  it('labels itself lexical, with its dimension', async () => {
    expect(e.info()).to.deep.equal({ provider: 'local-hashing', model: 'hashing-ngrams-v1', dimension: 384, kind: 'lexical' });
    expect(await e.dimension()).to.equal(384);
  });

  it('is deterministic and returns unit-length finite vectors', async () => {
    const [a, b] = await e.embed(['Deploy a PostgreSQL database', 'Deploy a PostgreSQL database']);
    expect(a).to.deep.equal(b);
    expect(a).to.have.length(384);
    expect(a.every(Number.isFinite)).to.equal(true);
    expect(dot(a, a)).to.be.closeTo(1, 1e-9);
    expect(await new HashingEmbedder(384).embed(['Deploy a PostgreSQL database'])).to.deep.equal([a]);
  });

  it('puts texts sharing words (and word forms) closer than unrelated texts', async () => {
    const [q, near, inflected, far] = await e.embed([
      'deploy a postgres database with backups',
      'postgres database with nightly backups',
      'deploying postgres databases',
      'rotate the TLS certificate of the ingress',
    ]);
    expect(dot(q, near)).to.be.greaterThan(dot(q, far) + 0.3);
    expect(dot(q, inflected)).to.be.greaterThan(dot(q, far));
  });

  it('ignores case and Unicode compatibility forms, and embeds punctuation-only text', async () => {
    const [a, b, c] = await e.embed(['Ｄｅｐｌｏｙ Redis', 'deploy redis', '!!!']);
    expect(a).to.deep.equal(b);
    expect(dot(c, c)).to.be.closeTo(1, 1e-9);
  });

  it('validates its input', async () => {
    expect(await rejection(e.embed([]))).to.be.instanceOf(ValidationError);
    expect(await rejection(e.embed(['']))).to.be.instanceOf(ValidationError);
    expect(() => new HashingEmbedder(4)).to.throw(/dimension/);
  });
});
