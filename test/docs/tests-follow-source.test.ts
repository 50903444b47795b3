import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..');

/**
 * Files of domain/ and application/ with runtime code that no test file
 * imports directly. Issue 44 found 89 (and six more that tests named only in
 * type imports); each got a test of its own and the list is empty. It only
 * shrinks: a new file without a test fails the test below.
 */
const UNTESTED_YET = new Set<string>([]);

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

/** The sources that some *.test.ts file imports for their runtime code (relative imports, static or dynamic; not type-only), as paths from the root. */
function importedByTests(): Set<string> {
  const found = new Set<string>();
  for (const file of walk(path.join(ROOT, 'test')).filter((f) => f.endsWith('.test.ts'))) {
    // a type-only import (`import type ...`, or every name marked `type`) runs nothing of the file: it is no test of it
    const text = readFileSync(file, 'utf8')
      .replace(/import\s+type\s[^;]*?from\s+'[^']+'/g, '')
      .replace(/import\s+\{(\s*type\s+[\w$]+\s*,?)+\s*\}\s*from\s+'[^']+'/g, '');
    for (const m of text.matchAll(/from\s+'(\.[^']+)'|import\('(\.[^']+)'\)|require\('(\.[^']+)'\)/g))
      found.add(path.relative(ROOT, path.resolve(path.dirname(file), m[1] ?? m[2] ?? m[3])).replace(/\.js$/, '.ts'));
  }
  return found;
}

describe('tests follow the source: every file of domain/ and application/ with runtime code has a test that imports it', () => {
  const imported = importedByTests();
  const sources = ['domain', 'application']
    .flatMap((d) => walk(path.join(ROOT, d)))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.relative(ROOT, f))
    .filter((f) => /^export (async )?(function|class|const|let)/m.test(readFileSync(path.join(ROOT, f), 'utf8')));

  it('a new file comes with a test', () => {
    expect(sources.filter((f) => !imported.has(f) && !UNTESTED_YET.has(f))).to.deep.equal([]);
  });

  it('a file that got its test leaves the list of those still without one', () => {
    expect([...UNTESTED_YET].filter((f) => imported.has(f) || !sources.includes(f))).to.deep.equal([]);
  });
});
