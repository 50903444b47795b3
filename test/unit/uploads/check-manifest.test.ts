import { expect } from 'chai';
import { ValidationError } from '../../../domain/errors.js';
import { checkManifest } from '../../../domain/uploads/check-manifest.js';
import { bytesOf, filesTotalling, manifestOf, skillFiles } from '../../support/upload-manifests.js';

function refusal(body: unknown): string {
  try {
    checkManifest(body);
  } catch (err) {
    expect(err).to.be.instanceOf(ValidationError);
    return (err as ValidationError).message;
  }
  throw new Error('expected the manifest to be refused');
}

const file = (path: string, content = 'aGk=') => ({ path, content });

describe('upload manifest checks', () => {
  it('passes a valid manifest, normalising paths and sanitising modes, in the order sent', () => {
    const m = checkManifest({
      source: 'local:demo',
      files: [
        { path: 'b/./x.md', content: 'aGk=', mode: '4755' },
        { path: 'a.md', content: '' },
        { path: 'B.md', content: 'aGVsbG8=', mode: 'abc' },
      ],
    });
    expect(m.identifier).to.equal('local:demo');
    expect(m.contentHash).to.equal(undefined);
    expect(m.files.map((f) => [f.path, f.mode, f.size])).to.deep.equal([
      ['b/x.md', 0o755, 2],
      ['a.md', 0o644, 0],
      ['B.md', 0o644, 5],
    ]);
    expect(m.totalBytes).to.equal(7);
  });

  it('refuses a body that is not an object, and unknown fields', () => {
    expect(refusal(null)).to.match(/^Upload manifest must be a JSON object/);
    expect(refusal([])).to.match(/^Upload manifest must be a JSON object/);
    expect(refusal('x')).to.match(/^Upload manifest must be a JSON object/);
    expect(refusal({ source: 'local:a', files: [file('a')], name: 'x' })).to.equal(
      'Unknown field name in upload manifest (allowed: source, contentHash, files)',
    );
    expect(refusal({ source: 'local:a', files: [{ ...file('a'), encoding: 'utf8' }] })).to.equal(
      'Unknown field encoding in files[0] (allowed: path, content, mode)',
    );
  });

  it('requires files: an array, non-empty, of objects with string path and content', () => {
    expect(refusal({ source: 'local:a' })).to.match(/^Missing required field files: a non-empty array/);
    expect(refusal({ source: 'local:a', files: {} })).to.match(/^Invalid files: must be a non-empty array/);
    expect(refusal({ source: 'local:a', files: [] })).to.equal('Invalid files: must not be empty');
    expect(refusal({ source: 'local:a', files: [null] })).to.match(/^Invalid files\[0\]: must be an object/);
    expect(refusal({ source: 'local:a', files: [file('a'), { content: 'aGk=' }] })).to.equal('Invalid files[1].path: must be a string');
    expect(refusal({ source: 'local:a', files: [{ path: 'x/y.md' }] })).to.equal('Invalid content of file x/y.md: must be a base64 string');
    expect(refusal({ source: 'local:a', files: [{ path: 'x/y.md', content: 12 }] })).to.equal('Invalid content of file x/y.md: must be a base64 string');
  });

  it('checks the source before the files', () => {
    expect(refusal({ files: [] })).to.match(/^Missing required field source/);
    expect(refusal({ source: 'nope', files: [file('../x')] })).to.match(/^Invalid source nope/);
  });

  it('takes exactly 100 files and refuses 101', () => {
    const files = (n: number) => Array.from({ length: n }, (_, i) => file(`f${i}.md`));
    expect(checkManifest({ source: 'local:a', files: files(100) }).files).to.have.length(100);
    expect(refusal({ source: 'local:a', files: files(101) })).to.equal('Too many files: 101 (at most 100 per manifest)');
  });

  it('takes exactly 256 KiB decoded and refuses one byte more, naming the file that crossed', () => {
    const at = manifestOf('local:a', filesTotalling(262144, 7));
    expect(checkManifest(at).totalBytes).to.equal(262144);
    const over = manifestOf('local:a', filesTotalling(262145, 7));
    expect(refusal(over)).to.equal('Decoded upload payload exceeds 262144 bytes (256 KiB): reached 262145 bytes at file f/006.bin');
    const single = manifestOf('local:a', [{ path: 'big.bin', bytes: bytesOf(262145) }]);
    expect(refusal(single)).to.match(/exceeds 262144 bytes .* reached 262145 bytes at file big\.bin$/);
  });

  it('refuses duplicates after normalisation, naming both spellings', () => {
    expect(refusal({ source: 'local:a', files: [file('a/b.md'), file('./a//b.md')] })).to.equal(
      'Duplicate file path ./a//b.md: same file as a/b.md after normalisation',
    );
    expect(refusal({ source: 'local:a', files: [file('a\\b.md'), file('a/b.md')] })).to.match(/^Duplicate file path a\/b\.md/);
    expect(checkManifest({ source: 'local:a', files: [file('A.md'), file('a.md')] }).files).to.have.length(2);
  });

  it('refuses bad paths and bad base64 by file', () => {
    expect(refusal({ source: 'local:a', files: [file('ok.md'), file('x\0y')] })).to.equal('Invalid file path x\0y: contains null byte');
    expect(refusal({ source: 'local:a', files: [file('../up.md')] })).to.equal('Invalid file path ../up.md: contains a .. segment');
    expect(refusal({ source: 'local:a', files: [file('s/SKILL.md', 'not base64!')] })).to.match(/^Invalid base64 content in file s\/SKILL\.md: /);
  });

  it('checks the contentHash form and keeps what was sent next to its lower-cased form', () => {
    const hex = 'AB'.repeat(32);
    const m = checkManifest({ source: 'local:a', contentHash: `sha256:${hex}`, files: [file('a')] });
    expect(m.sentContentHash).to.equal(`sha256:${hex}`);
    expect(m.contentHash).to.equal(`sha256:${hex.toLowerCase()}`);
    expect(checkManifest({ source: 'local:a', contentHash: null, files: [file('a')] }).contentHash).to.equal(undefined);
    for (const bad of ['sha256:abc', `sha1:${'a'.repeat(64)}`, `sha256:${'g'.repeat(64)}`, `${'a'.repeat(64)}`, `sha256:${'a'.repeat(65)}`, 7]) {
      expect(refusal({ source: 'local:a', contentHash: bad, files: [file('a')] })).to.match(/^Invalid contentHash .*: expected sha256:<64 hex digits>$/);
    }
  });

  it('passes the builder skill manifest', () => {
    expect(checkManifest(manifestOf('local:a', skillFiles(), true)).files).to.have.length(2);
  });
});
