import { expect } from 'chai';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DependencyError } from '../../domain/errors.js';
import { EmbeddedVectorStore } from '../../infrastructure/vector/embedded-vector-store.js';
import { rejection } from '../support/rejection.js';
import { CapturingLogger } from '../support/capturing-logger.js';

describe('EmbeddedVectorStore persistence', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'svc-embedded-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  async function seeded(): Promise<EmbeddedVectorStore> {
    const s = new EmbeddedVectorStore({ dir });
    await s.ensureCollection('patterns', { dimension: 3, distance: 'cosine' });
    await s.ensureCollection('policies', { dimension: 2, distance: 'cosine' });
    await s.upsert('patterns', [
      { id: 'web', vector: [1, 0.5, 0], payload: { name: 'web app', tags: ['http'] } },
      { id: 'db', vector: [0, 1, 1], payload: { name: 'database' } },
      { id: 'job', vector: [1, 0, 1], payload: { name: 'batch job' } },
    ]);
    return s;
  }

  it('survives a restart with the same points, payloads and scores', async () => {
    const before = await seeded();
    const query = { vector: [1, 0.2, 0.3], limit: 3 };
    const hits = await before.search('patterns', query);
    const after = new EmbeddedVectorStore({ dir });
    expect(await after.listCollections()).to.deep.equal(['patterns', 'policies']);
    expect(await after.describeCollection('policies')).to.deep.equal({ name: 'policies', dimension: 2, distance: 'cosine', count: 0 });
    expect(await after.search('patterns', query)).to.deep.equal(hits);
    expect(await after.get('patterns', ['web'])).to.deep.equal([{ id: 'web', payload: { name: 'web app', tags: ['http'] } }]);
  });

  it('persists deletes and dropped collections', async () => {
    const s = await seeded();
    await s.delete('patterns', ['db']);
    await s.deleteCollection('policies');
    const after = new EmbeddedVectorStore({ dir });
    expect(await after.listCollections()).to.deep.equal(['patterns']);
    expect((await after.list('patterns', { limit: 10 })).points.map((p) => p.id)).to.deep.equal(['job', 'web']);
    expect(await readdir(dir)).to.deep.equal(['patterns.svcvec']);
  });

  it('makes every concurrent write durable before it resolves', async () => {
    const s = new EmbeddedVectorStore({ dir });
    await s.ensureCollection('capabilities', { dimension: 2, distance: 'cosine' });
    await Promise.all(Array.from({ length: 40 }, (_, i) => s.upsert('capabilities', [{ id: `r${i}`, vector: [1, i], payload: { i } }])));
    const after = new EmbeddedVectorStore({ dir });
    expect(await after.count('capabilities')).to.equal(40);
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).to.deep.equal([]);
  });

  it('ignores and removes a write that a crash interrupted before its rename', async () => {
    await seeded();
    await writeFile(path.join(dir, '.patterns.svcvec.0123456789abcdef.tmp'), 'half a file');
    await writeFile(path.join(dir, 'patterns.svcvec.tmp-999-1'), 'half a file, named as before 0.2');
    const after = new EmbeddedVectorStore({ dir });
    expect(await after.count('patterns')).to.equal(3);
    expect((await readdir(dir)).sort()).to.deep.equal(['patterns.svcvec', 'policies.svcvec']);
  });

  for (const [what, damage] of [
    [
      'a flipped byte',
      (b: Buffer) => {
        b[b.length - 40] ^= 0xff;
        return b;
      },
    ],
    ['a truncated file', (b: Buffer) => b.subarray(0, b.length - 7)],
    ['foreign content', () => Buffer.from('{"not":"ours"}')],
  ] as const) {
    it(`sets aside a corrupt file (${what}) and reports it, never silently emptying it`, async () => {
      await seeded();
      const file = path.join(dir, 'patterns.svcvec');
      const damaged = damage(await readFile(file));
      await writeFile(file, damaged);
      const logger = new CapturingLogger();
      const after = new EmbeddedVectorStore({ dir, logger });

      const health = await after.health();
      expect(health.connected).to.equal(true);
      expect(health.warnings).to.have.length(1);
      expect(health.warnings![0]).to.match(/collection 'patterns': file was corrupt .* moved to patterns\.svcvec\.corrupt-/);
      expect(logger.lines.filter((l) => l.level === 'error')).to.have.length(1);
      expect(await after.collectionExists('patterns')).to.equal(false);
      expect(await after.count('policies')).to.equal(0);
      const aside = (await readdir(dir)).find((f) => f.startsWith('patterns.svcvec.corrupt-'))!;
      expect(await readFile(path.join(dir, aside))).to.deep.equal(damaged);

      await after.ensureCollection('patterns', { dimension: 3, distance: 'cosine' });
      expect(await new EmbeddedVectorStore({ dir }).collectionExists('patterns')).to.equal(true);
    });
  }

  it('reports a directory it cannot use, and retries on the next call', async () => {
    const blocker = path.join(dir, 'not-a-dir');
    await writeFile(blocker, 'x');
    const s = new EmbeddedVectorStore({ dir: path.join(blocker, 'vectors') });
    const health = await s.health();
    expect(health.connected).to.equal(false);
    expect(health.error).to.match(/cannot use .*not-a-dir\/vectors/);
    expect(await rejection(s.count('patterns'))).to.be.instanceOf(DependencyError);
    await rm(blocker);
    expect((await s.health()).connected).to.equal(true);
  });
});
