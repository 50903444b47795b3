import { expect } from 'chai';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PromptsSourceError } from '../../domain/errors.js';
import { DataDirCloneWorkspace } from '../../infrastructure/git/data-dir-clone-workspace.js';
import { DEFAULT_TREE_LIMITS, FsPromptTreeReader } from '../../infrastructure/prompts/fs-prompt-tree-reader.js';
import { CapturingLogger } from '../support/capturing-logger.js';
import { rejection as rejected } from '../support/rejection.js';

function write(root: string, files: Record<string, string>) {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
    chmodSync(path.join(root, rel), 0o644); // independent of the umask
  }
}

describe('clone files on disk', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = mkdtempSync(path.join(tmpdir(), 'svc-tree-'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  describe('FsPromptTreeReader', () => {
    it('reads regular files with their modes, skipping .git and symlinks', async () => {
      const root = path.join(tmp, 'clone');
      write(root, { 'a.md': 'A', 'skills/s/SKILL.md': 'S', 'skills/s/run.sh': '#!/bin/sh', '.git/config': 'x', 'outside/secret.txt': 'no' });
      chmodSync(path.join(root, 'skills/s/run.sh'), 0o755);
      write(tmp, { 'secret.md': 'host secret' });
      symlinkSync(path.join(tmp, 'secret.md'), path.join(root, 'leak.md'));
      symlinkSync(tmp, path.join(root, 'leak-dir'));
      const tree = await new FsPromptTreeReader().read(root, '');
      expect(tree.missing).to.equal(false);
      expect(tree.files.map((f) => [f.path, f.content.toString(), f.mode.toString(8)])).to.deep.equal([
        ['a.md', 'A', '644'],
        ['outside/secret.txt', 'no', '644'],
        ['skills/s/SKILL.md', 'S', '644'],
        ['skills/s/run.sh', '#!/bin/sh', '755'],
      ]);
      expect(tree.warnings.map((w) => w.path).sort()).to.deep.equal(['leak-dir', 'leak.md']);
    });

    it('reads a sub-folder, and reports a missing one', async () => {
      const root = path.join(tmp, 'clone');
      write(root, { 'team/x.md': 'X', 'y.md': 'Y' });
      expect((await new FsPromptTreeReader().read(root, 'team')).files.map((f) => f.path)).to.deep.equal(['x.md']);
      expect(await new FsPromptTreeReader().read(root, 'nope')).to.deep.equal({ files: [], warnings: [], missing: true });
      expect((await new FsPromptTreeReader().read(root, 'y.md')).missing).to.equal(true);
    });

    it('never follows a symlinked sub-folder out of the clone', async () => {
      const root = path.join(tmp, 'clone');
      write(root, { 'a.md': 'A' });
      write(tmp, { 'elsewhere/secret.md': 'S' });
      symlinkSync(path.join(tmp, 'elsewhere'), path.join(root, 'prompts'));
      expect(await new FsPromptTreeReader().read(root, 'prompts')).to.deep.equal({ files: [], warnings: [], missing: true });
    });

    it('skips an oversized file, and refuses a folder over the file or byte budget', async () => {
      const root = path.join(tmp, 'clone');
      write(root, { 'big.md': 'x'.repeat(101), 'a.md': 'a', 'b.md': 'b', 'c.md': 'c' });
      const limits = { ...DEFAULT_TREE_LIMITS, maxFileBytes: 100 };
      const tree = await new FsPromptTreeReader(limits).read(root, '');
      expect(tree.files.map((f) => f.path)).to.deep.equal(['a.md', 'b.md', 'c.md']);
      expect(tree.warnings).to.deep.equal([{ path: 'big.md', reason: 'larger than 100 bytes; skipped' }]);
      const tooMany = await rejected(new FsPromptTreeReader({ ...limits, maxFiles: 2 }).read(root, ''));
      expect(tooMany).to.be.instanceOf(PromptsSourceError);
      expect(tooMany.message).to.equal('Prompt source holds more than 2 files; point path at the prompts folder');
      const tooBig = await rejected(new FsPromptTreeReader({ ...DEFAULT_TREE_LIMITS, maxTotalBytes: 50 }).read(root, ''));
      expect(tooBig).to.be.instanceOf(PromptsSourceError);
    });

    it('stops descending past the depth limit', async () => {
      const root = path.join(tmp, 'clone');
      write(root, { 'a/b/c/d.md': 'deep', 'a/top.md': 't' });
      const tree = await new FsPromptTreeReader({ ...DEFAULT_TREE_LIMITS, maxDepth: 2 }).read(root, '');
      expect(tree.files.map((f) => f.path)).to.deep.equal(['a/top.md']);
      expect(tree.warnings[0].path).to.equal('a/b/c');
    });
  });

  describe('DataDirCloneWorkspace', () => {
    it('hands out fresh folders under prompt-clones and removes stale ones on first use', async () => {
      write(tmp, { 'prompt-clones/stale-1/x': 'old', 'other/keep.txt': 'keep' });
      const ws = new DataDirCloneWorkspace(tmp, new CapturingLogger());
      const a = await ws.allocate();
      const b = await ws.allocate();
      expect(path.dirname(a)).to.equal(path.join(tmp, 'prompt-clones'));
      expect(a).to.not.equal(b);
      expect(existsSync(a)).to.equal(false);
      expect(existsSync(path.join(tmp, 'prompt-clones/stale-1'))).to.equal(false);
      expect(existsSync(path.join(tmp, 'other/keep.txt'))).to.equal(true);
      mkdirSync(a);
      write(a, { 'f.md': 'x' });
      await ws.release(a);
      expect(existsSync(a)).to.equal(false);
    });

    it('refuses to remove anything outside its folder', async () => {
      write(tmp, { 'precious/file': 'x' });
      const logger = new CapturingLogger();
      const ws = new DataDirCloneWorkspace(tmp, logger);
      await ws.release(path.join(tmp, 'precious'));
      await ws.release(path.join(tmp, 'prompt-clones', '..', 'precious'));
      expect(existsSync(path.join(tmp, 'precious/file'))).to.equal(true);
      expect(logger.lines.filter((l) => l.level === 'error')).to.have.length(2);
    });
  });
});
