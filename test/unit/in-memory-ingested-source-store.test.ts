import { expect } from 'chai';
import { ValidationError } from '../../domain/errors.js';
import type { IngestedSource } from '../../domain/uploads/ingested-source.js';
import { InMemoryIngestedSourceStore } from '../../infrastructure/uploads/in-memory-ingested-source-store.js';
import { rejection } from '../support/rejection.js';

function source(key: string, totalBytes: number, contentHash?: string): IngestedSource {
  return { key, source: `local:${key}`, contentHash, files: [{ path: 'f', mode: 0o644, content: Buffer.alloc(totalBytes) }], totalBytes };
}

describe('InMemoryIngestedSourceStore', () => {
  it('evicts the least recently used source when the count bound is reached', async () => {
    const store = new InMemoryIngestedSourceStore({ maxSources: 3, maxBytes: 1000 });
    for (const k of ['a', 'b', 'c']) await store.put(source(k, 10));
    await store.get('a'); // a is now the most recent: b goes first
    await store.put(source('d', 10));
    expect(await store.get('b')).to.equal(undefined);
    for (const k of ['a', 'c', 'd']) expect((await store.get(k))?.key).to.equal(k);
    expect(store.stats()).to.deep.equal({ count: 3, bytes: 30 });
  });

  it('evicts by total decoded bytes, as many as needed, oldest first', async () => {
    const store = new InMemoryIngestedSourceStore({ maxSources: 100, maxBytes: 100 });
    await store.put(source('a', 40));
    await store.put(source('b', 30));
    await store.put(source('c', 30));
    expect(store.stats()).to.deep.equal({ count: 3, bytes: 100 });
    await store.put(source('d', 60));
    expect(await store.get('a')).to.equal(undefined);
    expect(await store.get('b')).to.equal(undefined);
    expect((await store.get('c'))?.key).to.equal('c');
    expect(store.stats()).to.deep.equal({ count: 2, bytes: 90 });
  });

  it('a replacement swaps the entry whole and frees the old bytes first', async () => {
    const store = new InMemoryIngestedSourceStore({ maxSources: 2, maxBytes: 100 });
    await store.put(source('a', 50, 'sha256:1'));
    await store.put(source('b', 50));
    await store.put(source('a', 50, 'sha256:2'));
    expect((await store.get('a'))?.contentHash).to.equal('sha256:2');
    expect((await store.get('b'))?.key).to.equal('b');
    expect(store.stats()).to.deep.equal({ count: 2, bytes: 100 });
  });

  it('refuses one source larger than the whole byte bound and keeps what it had', async () => {
    const store = new InMemoryIngestedSourceStore({ maxSources: 2, maxBytes: 100 });
    await store.put(source('a', 100));
    const err = await rejection(store.put(source('a', 101)));
    expect(err).to.be.instanceOf(ValidationError);
    expect(err.message).to.include('SVC_SOURCES_MAX_BYTES');
    expect((await store.get('a'))?.totalBytes).to.equal(100);
  });

  it('starts empty (nothing is preloaded) and answers undefined for unknown keys', async () => {
    const store = new InMemoryIngestedSourceStore({ maxSources: 1, maxBytes: 1 });
    expect(store.stats()).to.deep.equal({ count: 0, bytes: 0 });
    expect(await store.get('nope')).to.equal(undefined);
    expect(() => new InMemoryIngestedSourceStore({ maxSources: 0, maxBytes: 1 })).to.throw(/must be positive/);
  });
});
