import { expect } from 'chai';
import { ValidationError } from '../../../domain/errors.js';
import { checkManifest } from '../../../domain/uploads/check-manifest.js';
import { decodeManifest } from '../../../domain/uploads/decode-manifest.js';
import { sourceKey } from '../../../domain/uploads/source-identifier.js';
import { bytesOf, clientContentHash, filesTotalling, manifestOf, skillFiles } from '../../support/upload-manifests.js';

describe('decoding a checked manifest', () => {
  it('decodes every file byte-exact, keyed by the identifier digest and shown scrubbed', () => {
    const files = [...skillFiles(), { path: 'z/empty', bytes: Buffer.alloc(0) }, { path: 'y/odd', bytes: bytesOf(1001, 3) }];
    const id = 'https://me:tok3n-value@git.example/skills.git';
    const src = decodeManifest(checkManifest(manifestOf(id, files)));
    expect(src.key).to.equal(sourceKey(id));
    expect(src.source).to.equal('https://***:***@git.example/skills.git');
    expect(JSON.stringify(src)).not.to.include('tok3n-value');
    expect(src.files.map((f) => f.path)).to.deep.equal(['skills/demo/SKILL.md', 'skills/demo/run.sh', 'y/odd', 'z/empty']);
    for (const f of files) {
      const got = src.files.find((g) => g.path === f.path)!;
      expect(Buffer.from(got.content).equals(f.bytes)).to.equal(true);
    }
    expect(src.files.find((f) => f.path === 'skills/demo/run.sh')!.mode).to.equal(0o755);
    expect(src.totalBytes).to.equal(files.reduce((n, f) => n + f.bytes.length, 0));
  });

  it('accepts the contentHash a client computes from the README recipe, at the decoded limit too', () => {
    for (const files of [skillFiles(), filesTotalling(262144, 100)]) {
      const m = manifestOf('local:a', files, true);
      expect(decodeManifest(checkManifest(m)).contentHash).to.equal(m.contentHash);
    }
  });

  it('hashes the sanitised mode, the normalised path and the path order', () => {
    const bytes = Buffer.from('same');
    const base = clientContentHash([{ path: 'a/b', bytes, mode: 0o755 }]);
    const sent = (path: string, mode: string) => ({
      source: 'local:a',
      contentHash: base,
      files: [{ path, content: bytes.toString('base64'), mode }],
    });
    expect(decodeManifest(checkManifest(sent('./a//b', '4755'))).contentHash).to.equal(base);
    expect(() => decodeManifest(checkManifest(sent('a/b', '0644')))).to.throw(ValidationError, /contentHash mismatch/);
    const twoFiles = [
      { path: 'b', bytes: Buffer.from('1') },
      { path: 'a', bytes: Buffer.from('2') },
    ];
    const m = manifestOf('local:a', twoFiles, true);
    expect(decodeManifest(checkManifest({ ...m, files: [...m.files].reverse() })).contentHash).to.equal(m.contentHash);
  });

  it('orders files by UTF-8 bytes, not JS string order, for the hash', () => {
    const files = [
      { path: '\u{1F600}.md', bytes: Buffer.from('smile') },
      { path: '\uFB01.md', bytes: Buffer.from('ligature') },
      { path: 'z.md', bytes: Buffer.from('z') },
    ];
    const m = manifestOf('local:a', files, true);
    const src = decodeManifest(checkManifest(m));
    expect(src.files.map((f) => f.path)).to.deep.equal(['z.md', '\uFB01.md', '\u{1F600}.md']);
    expect(src.contentHash).to.equal(m.contentHash);
  });

  it('refuses a contentHash that does not match, naming both hashes', () => {
    const m = manifestOf('local:a', skillFiles(), true);
    const other = manifestOf('local:a', [...skillFiles(), { path: 'extra', bytes: Buffer.from('x') }], true);
    const wrong = { ...m, contentHash: other.contentHash };
    expect(() => decodeManifest(checkManifest(wrong))).to.throw(ValidationError, `contentHash mismatch: sent ${other.contentHash}, computed ${m.contentHash} `);
  });

  it('holds all contents in one exactly-sized allocation', () => {
    const src = decodeManifest(checkManifest(manifestOf('local:a', filesTotalling(5000, 9))));
    const buffers = new Set(src.files.map((f) => f.content.buffer));
    expect(buffers.size).to.equal(1);
    expect((src.files[0].content.buffer as ArrayBuffer).byteLength).to.equal(5000);
  });
});
