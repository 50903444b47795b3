import { expect } from 'chai';
import { IngestSource } from '../../application/ingest-source.js';
import { ValidationError } from '../../domain/errors.js';
import { sourceKey } from '../../domain/uploads/source-identifier.js';
import { FakeIngestedSourceStore } from '../fakes/fake-ingested-source-store.js';
import { manifestOf, skillFiles } from '../support/upload-manifests.js';
import { rejection } from '../support/rejection.js';

describe('IngestSource', () => {
  let store: FakeIngestedSourceStore;
  let ingest: IngestSource;
  beforeEach(() => {
    store = new FakeIngestedSourceStore();
    ingest = new IngestSource(store);
  });

  it('not cached -> ingested, answering the scrubbed identifier, the echoed hash and the file count', async () => {
    const id = 'https://me:tok3n-value@git.example/skills.git';
    const m = manifestOf(id, skillFiles(), true);
    const out = await ingest.execute(m);
    expect(out).to.deep.equal({
      source: 'https://***:***@git.example/skills.git',
      contentHash: m.contentHash,
      fileCount: 2,
      status: 'ingested',
    });
    const cached = store.entries.get(sourceKey(id))!;
    expect(cached.files.map((f) => f.path)).to.deep.equal(['skills/demo/SKILL.md', 'skills/demo/run.sh']);
    expect(cached.contentHash).to.equal(m.contentHash);
  });

  it('leaves contentHash out of the answer when none was sent, and echoes it as sent (upper case too)', async () => {
    expect(await ingest.execute(manifestOf('local:a', skillFiles()))).to.deep.equal({
      source: 'local:a',
      fileCount: 2,
      status: 'ingested',
    });
    const m = manifestOf('local:b', skillFiles(), true);
    const upper = { ...m, contentHash: `sha256:${m.contentHash!.slice(7).toUpperCase()}` };
    expect((await ingest.execute(upper)).contentHash).to.equal(upper.contentHash);
    expect((await ingest.execute(m)).status).to.equal('unchanged');
  });

  it('cached with the same hash -> unchanged: nothing decoded or rewritten', async () => {
    const m = manifestOf('local:a', skillFiles(), true);
    await ingest.execute(m);
    const before = store.entries.get(sourceKey('local:a'));
    const out = await ingest.execute(m);
    expect(out.status).to.equal('unchanged');
    expect(out.contentHash).to.equal(m.contentHash);
    expect(store.entries.get(sourceKey('local:a'))).to.equal(before);
  });

  it('the fast path trusts the cached, verified hash: different contents under the same hash are not read', async () => {
    const m = manifestOf('local:a', skillFiles(), true);
    await ingest.execute(m);
    const before = store.entries.get(sourceKey('local:a'));
    const other = manifestOf('local:a', [{ path: 'x.md', bytes: Buffer.from('other') }]);
    expect((await ingest.execute({ ...other, contentHash: m.contentHash })).status).to.equal('unchanged');
    const unread = { source: 'local:a', contentHash: m.contentHash, files: [{ path: 'x.md', content: 'QU-D' }] };
    expect((await ingest.execute(unread)).status).to.equal('unchanged');
    expect(store.entries.get(sourceKey('local:a'))).to.equal(before);
    // the same manifest under an identifier that is not cached is decoded, and refused
    expect(await rejection(ingest.execute({ ...unread, source: 'local:b' }))).to.be.instanceOf(ValidationError);
  });

  it('cached with a different hash, or none sent -> replaced (ingested)', async () => {
    await ingest.execute(manifestOf('local:a', skillFiles('one'), true));
    const two = manifestOf('local:a', skillFiles('two'), true);
    expect((await ingest.execute(two)).status).to.equal('ingested');
    expect(store.entries.get(sourceKey('local:a'))!.files[0].path).to.equal('skills/two/SKILL.md');
    const three = manifestOf('local:a', skillFiles('three'));
    expect((await ingest.execute(three)).status).to.equal('ingested');
    expect(store.entries.get(sourceKey('local:a'))!.files[0].path).to.equal('skills/three/SKILL.md');
    expect(store.entries.get(sourceKey('local:a'))!.contentHash).to.equal(undefined);
    // cached without a hash: the same files now with their hash are ingested, not unchanged
    expect((await ingest.execute(manifestOf('local:a', skillFiles('three'), true))).status).to.equal('ingested');
  });

  it('identifiers are exact: another spelling is another source', async () => {
    await ingest.execute(manifestOf('local:a', skillFiles(), true));
    expect((await ingest.execute(manifestOf('local:A', skillFiles(), true))).status).to.equal('ingested');
    expect(store.entries.size).to.equal(2);
  });

  it('a rejected upload leaves the cached copy intact, whichever check fails', async () => {
    const good = manifestOf('local:a', skillFiles(), true);
    await ingest.execute(good);
    const before = store.entries.get(sourceKey('local:a'));
    const bad = [
      { ...good, files: [...good.files, { path: '../x', content: '' }] },
      { ...good, files: [...good.files, { path: 'x', content: '***' }] },
      { ...good, contentHash: `sha256:${'0'.repeat(64)}` },
      { ...good, contentHash: 'sha256:short' },
      { ...good, files: [] },
    ];
    for (const m of bad) {
      expect(await rejection(ingest.execute(m))).to.be.instanceOf(ValidationError);
      expect(store.entries.get(sourceKey('local:a'))).to.equal(before);
    }
    expect(store.entries.size).to.equal(1);
  });
});
