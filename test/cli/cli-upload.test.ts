import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { IngestedSourceStore } from '../../domain/ports/ingested-source-store.js';
import { sourceKey } from '../../domain/uploads/source-identifier.js';
import { MAX_UPLOAD_DECODED_BYTES } from '../../domain/uploads/upload-limits.js';
import { TOKENS } from '../../infrastructure/tokens.js';
import { startAccessServer, TEST_TOKEN, type AccessServer } from '../support/access-server.js';
import { runCli } from '../support/run-cli.js';

/** A skill folder of `count` files whose sizes add up to exactly `totalBytes`, plus dotfiles that must not travel. */
function makeSkillFolder(root: string, count: number, totalBytes: number): void {
  mkdirSync(path.join(root, 'docs'), { recursive: true });
  mkdirSync(path.join(root, '.git'), { recursive: true });
  writeFileSync(path.join(root, '.git', 'config'), 'secret');
  writeFileSync(path.join(root, '.env'), 'TOKEN=secret');
  const header =
    '---\nname: big-skill\ndescription: A skill with many files\narguments:\n  - name: target\n    description: what to deploy\n    required: true\n---\nDeploy {{target}}.\n';
  const each = Math.floor(totalBytes / count);
  let written = 0;
  for (let i = 0; i < count; i++) {
    const size = i === count - 1 ? totalBytes - written : each;
    const name = i === 0 ? 'SKILL.md' : path.join('docs', `part-${String(i).padStart(3, '0')}.md`);
    const body = i === 0 ? header.padEnd(size, '\n') : `# part ${i}\n`.padEnd(size, 'x');
    writeFileSync(path.join(root, name), body, { mode: i === 1 ? 0o755 : 0o644 });
    written += size;
  }
}

describe('svc prompts upload', function () {
  this.timeout(60_000);
  let server: AccessServer;
  let env: Record<string, string>;
  let workDir: string;
  let store: IngestedSourceStore;

  before(async () => {
    server = await startAccessServer();
    env = { SVC_URL: server.url, SVC_AUTH_TOKEN: TEST_TOKEN };
    workDir = mkdtempSync(path.join(tmpdir(), 'svc-upload-'));
    store = server.container.resolve<IngestedSourceStore>(TOKENS.IngestedSourceStore);
  });

  after(async () => {
    await server.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('uploads a folder of 100 files at exactly 256 KiB (dotfiles skipped), then answers unchanged on the second run', async () => {
    const dir = path.join(workDir, 'hundred');
    makeSkillFolder(dir, 100, MAX_UPLOAD_DECODED_BYTES);

    const first = await runCli(['prompts', 'upload', dir, '--source', 'local:ci-hundred'], env);
    expect(first.code, first.stderr).to.equal(0);
    expect(first.stdout).to.match(/^ingested local:ci-hundred: 100 files, sha256:[0-9a-f]{64}$/m);
    expect(first.stderr, 'a progress indication for a large folder').to.match(/reading: 100\/100 files \(100%\)/);
    expect(first.stderr).to.match(/uploading 100 files/);

    const cached = await store.get(sourceKey('local:ci-hundred'));
    expect(cached?.files).to.have.length(100);
    expect(cached?.totalBytes).to.equal(MAX_UPLOAD_DECODED_BYTES);
    expect(cached?.files.map((f) => f.path)).to.not.include.members(['.env', '.git/config']);
    expect(cached?.files.find((f) => f.path === 'docs/part-001.md')?.mode).to.equal(0o755);
    const hash = /sha256:[0-9a-f]{64}/.exec(first.stdout)![0];
    expect(cached?.contentHash, 'the CLI hash is the one the server verified').to.equal(hash);

    const second = await runCli(['prompts', 'upload', dir, '--source', 'local:ci-hundred', '-o', 'json'], env);
    expect(second.code, second.stderr).to.equal(0);
    expect(JSON.parse(second.stdout)).to.deep.equal({ source: 'local:ci-hundred', contentHash: hash, fileCount: 100, status: 'unchanged' });
    expect(await store.get(sourceKey('local:ci-hundred')), 'unchanged leaves the cached copy as it was').to.equal(cached);
  });

  it('uploads again as ingested when a file changed', async () => {
    const dir = path.join(workDir, 'small');
    makeSkillFolder(dir, 3, 600);
    const first = await runCli(['prompts', 'upload', dir, '--source', 'local:ci-small'], env);
    expect(first.stdout).to.match(/^ingested /);
    expect(first.stderr, 'no progress for a small folder').to.equal('');
    writeFileSync(path.join(dir, 'docs', 'part-001.md'), 'changed');
    const second = await runCli(['prompts', 'upload', dir, '--source', 'local:ci-small'], env);
    expect(second.code).to.equal(0);
    expect(second.stdout).to.match(/^ingested local:ci-small: 3 files/);
  });

  it('refuses a folder over the limits before sending anything (exit 2)', async () => {
    const tooMany = path.join(workDir, 'too-many');
    makeSkillFolder(tooMany, 101, 101 * 10);
    const tooBig = path.join(workDir, 'too-big');
    makeSkillFolder(tooBig, 2, MAX_UPLOAD_DECODED_BYTES + 1);
    const badName = path.join(workDir, 'bad-name');
    makeSkillFolder(badName, 2, 100);
    writeFileSync(path.join(badName, 'line\nbreak.md'), 'x');

    const cases: [string, RegExp][] = [
      [tooMany, /Too many files: more than 100 .* nothing was sent/],
      [tooBig, /Folder too large: more than 262144 bytes .* nothing was sent/],
      [badName, /Invalid file path [\s\S]*contains a control character; nothing was sent/],
    ];
    for (const [dir, message] of cases) {
      const id = `local:ci-${path.basename(dir)}`;
      const run = await runCli(['prompts', 'upload', dir, '--source', id], env);
      expect(run.code, dir).to.equal(2);
      expect(run.stderr, dir).to.match(message);
      expect(await store.get(sourceKey(id)), `${id} never reached the server`).to.equal(undefined);
    }
  });

  it('refuses a bad identifier, a missing folder and skips symbolic links', async () => {
    const dir = path.join(workDir, 'linked');
    makeSkillFolder(dir, 2, 100);
    symlinkSync('/etc/hostname', path.join(dir, 'outside.md'));

    const badId = await runCli(['prompts', 'upload', dir, '--source', 'no-scheme'], env);
    expect(badId.code).to.equal(2);
    expect(badId.stderr).to.include('Invalid source');
    const missing = await runCli(['prompts', 'upload', path.join(workDir, 'nope'), '--source', 'local:x'], env);
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.include('is not a directory');

    const linked = await runCli(['prompts', 'upload', dir, '--source', 'local:ci-linked'], env);
    expect(linked.code, linked.stderr).to.equal(0);
    expect(linked.stderr).to.include('skipped outside.md: symbolic link (not followed)');
    expect((await store.get(sourceKey('local:ci-linked')))?.files.map((f) => f.path)).to.deep.equal(['SKILL.md', 'docs/part-001.md']);
  });

  it('--dry-run checks and hashes without sending; the hash matches what the server verifies', async () => {
    const dir = path.join(workDir, 'dry');
    makeSkillFolder(dir, 4, 800);
    const dry = await runCli(['prompts', 'upload', dir, '--source', 'local:ci-dry', '--dry-run', '-o', 'json'], env);
    expect(dry.code, dry.stderr).to.equal(0);
    const summary = JSON.parse(dry.stdout) as { contentHash: string; sent: boolean };
    expect(summary.sent).to.equal(false);
    expect(await store.get(sourceKey('local:ci-dry'))).to.equal(undefined);
    const real = await runCli(['prompts', 'upload', dir, '--source', 'local:ci-dry', '-o', 'json'], env);
    expect((JSON.parse(real.stdout) as { contentHash: string }).contentHash).to.equal(summary.contentHash);
  });

  it('exits 1 with the server’s message when the server refuses the upload', async () => {
    const dir = path.join(workDir, 'refused');
    makeSkillFolder(dir, 2, 100);
    const run = await runCli(['prompts', 'upload', dir, '--source', 'local:ci-refused'], { SVC_URL: server.url, SVC_AUTH_TOKEN: 'wrong-token-wrong-token' });
    expect(run.code).to.equal(1);
    expect(run.stderr).to.include('svc: UNAUTHORIZED');
  });
});
