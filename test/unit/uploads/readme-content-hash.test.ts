import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { checkManifest } from '../../../domain/uploads/check-manifest.js';
import { decodeManifest } from '../../../domain/uploads/decode-manifest.js';
import { projectRoot } from '../../../infrastructure/project-root.js';
import { bytesOf } from '../../support/upload-manifests.js';

type ReadmeHash = (files: { path: string; bytes: Buffer; mode: number }[]) => string;

/** The JavaScript block of the contentHash section of docs/prompts.md, as a function. */
function readmeSnippet(): ReadmeHash {
  const readme = readFileSync(path.join(projectRoot(), 'docs', 'prompts.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## contentHash'));
  const code = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error('docs/prompts.md has no js block in its contentHash section');
  return new Function('require', `${code}\nreturn contentHash;`)(require) as ReadmeHash;
}

describe('the contentHash recipe of docs/prompts.md', () => {
  it('computes the hash the server verifies', () => {
    const contentHash = readmeSnippet();
    const files = [
      { path: 'skills/deploy/SKILL.md', bytes: Buffer.from('---\nname: deploy\n---\nhi\n'), mode: 0o644 },
      { path: 'skills/deploy/run.sh', bytes: bytesOf(1000, 5), mode: 0o755 },
      { path: 'Z/\u00e9.md', bytes: Buffer.alloc(0), mode: 0o600 },
    ];
    const hash = contentHash(files);
    const manifest = {
      source: 'local:readme',
      contentHash: hash,
      files: files.map((f) => ({ path: f.path, content: f.bytes.toString('base64'), mode: f.mode.toString(8) })),
    };
    expect(decodeManifest(checkManifest(manifest)).contentHash).to.equal(hash);
  });
});
