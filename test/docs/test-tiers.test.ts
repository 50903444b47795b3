import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { TIERS, SLOW } = require('../../../test/tiers.cjs') as { TIERS: Record<string, string[]>; SLOW: string[] };

const root = path.resolve(__dirname, '../../..');

/** The globs of test/tiers.cjs (`*` within a name, `**` across folders) as a regular expression. */
const globRe = (glob: string): RegExp =>
  new RegExp(
    `^${glob
      .split('**/')
      .map((part) => part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*'))
      .join('(?:.*/)?')}$`,
  );
const matches = (globs: string[], file: string): boolean => globs.some((g) => globRe(g).test(file));
const slowGlobs = SLOW.map((p) => (p.endsWith('.js') ? p : `${p}/**/*.test.js`));

/** Every test file of the suite, as its path under dist/test (the reliability suite runs on its own). */
function testFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(path.join(root, 'test', dir), { withFileTypes: true })) {
      const rel = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory() && rel !== 'reliability') walk(rel);
      else if (e.name.endsWith('.test.ts')) out.push(rel.replace(/\.ts$/, '.js'));
    }
  };
  walk('');
  return out;
}

/** The tier a file runs in: slow when a slow glob names it, otherwise the fast tiers that name it. */
function tiersOf(file: string): string[] {
  if (matches(slowGlobs, file)) return ['slow'];
  return Object.entries(TIERS)
    .filter(([name, globs]) => name !== 'slow' && matches(globs, file))
    .map(([name]) => name);
}

describe('the test tiers (test/tiers.cjs, docs/development.md)', () => {
  const files = testFiles();

  it('reads the globs as mocha does', () => {
    expect(globRe('unit/**/*.test.js').test('unit/a.test.js')).to.equal(true);
    expect(globRe('unit/**/*.test.js').test('unit/deep/a.test.js')).to.equal(true);
    expect(globRe('adapters/redis-*.test.js').test('adapters/redis-session-store.test.js')).to.equal(true);
    expect(globRe('adapters/redis-*.test.js').test('adapters/qdrant.test.js')).to.equal(false);
  });

  it('puts every test file in exactly one tier, so the four tiers together are the whole suite', () => {
    expect(files.length).to.be.greaterThan(150);
    const wrong = files.map((f) => ({ f, tiers: tiersOf(f) })).filter(({ tiers }) => tiers.length !== 1);
    expect(wrong).to.deep.equal([]);
  });

  it('keeps every file that starts processes, Redis or Chromium out of the fast tiers', () => {
    const heavy =
      /from '\.\.\/support\/(redis-server|redis-fixture|redis-ledger-writer|svc-process|replica-processes|run-cli|mcp-memory-probe)\.js'|playwright-core/;
    // (this file names them in its pattern, and starts none)
    const fast = files.filter((f) => !tiersOf(f).includes('slow') && f !== 'docs/test-tiers.test.js');
    const misplaced = fast.filter((f) => heavy.test(readFileSync(path.join(root, 'test', f.replace(/\.js$/, '.ts')), 'utf8')));
    expect(misplaced).to.deep.equal([]);
  });
});
