import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../infrastructure/project-root.js';
import { docFiles } from '../support/doc-examples.js';

const root = projectRoot();
/** The design notes DESIGN.md indexes, relative to the project root. */
const DESIGN_NOTES = readdirSync(path.join(root, 'docs/design'))
  .filter((f) => f.endsWith('.md'))
  .sort()
  .map((f) => `docs/design/${f}`);
/** Every Markdown page of the project a reader is sent to: README, docs/, DESIGN and its notes, the benchmarks' and the chart's READMEs. */
const PAGES = [...docFiles(), 'DESIGN.md', ...DESIGN_NOTES, 'bench/README.md', 'charts/svc/README.md'];

/** GitHub's anchor of a heading. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N} -]/gu, '')
    .replace(/ /g, '-');
}

/** The page's text outside fenced blocks, and its headings' anchors. */
function read(file: string) {
  const text = readFileSync(path.join(root, file), 'utf8');
  let fence = false;
  const prose: string[] = [];
  const anchors = new Set<string>();
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fence = !fence;
    else if (!fence) {
      prose.push(line);
      const h = /^#{1,6} (.*)$/.exec(line);
      if (h) anchors.add(slug(h[1]));
    }
  }
  return { text, prose: prose.join('\n'), anchors };
}

describe('the docs claim nothing the repository lacks', () => {
  it('every relative link of every page names a file that exists, and an anchor that page has', () => {
    const broken: string[] = [];
    for (const file of PAGES) {
      for (const [, target] of read(file).prose.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target)) continue;
        const [rel, anchor] = target.split('#');
        const resolved = rel === '' ? path.join(root, file) : path.join(root, path.dirname(file), rel);
        if (!existsSync(resolved)) {
          broken.push(`${file}: ${target} (no such file)`);
          continue;
        }
        if (anchor && resolved.endsWith('.md') && !read(path.relative(root, resolved)).anchors.has(anchor)) broken.push(`${file}: ${target} (no such heading)`);
      }
    }
    expect(broken).to.deep.equal([]);
  });

  it('every section of a page that the chart, the Dockerfile or a page names (`page.md, "Heading"`, `page.md#anchor`) exists', () => {
    const chart = readdirSync(path.join(root, 'charts/svc'), { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.(ya?ml|tpl|txt)$/.test(f))
      .map((f) => `charts/svc/${f}`);
    const missing: string[] = [];
    let named = 0;
    for (const file of [...PAGES, ...chart, 'Dockerfile']) {
      const text = readFileSync(path.join(root, file), 'utf8').replace(/\n#\s*/g, ' ');
      const refs = [
        ...[...text.matchAll(/([\w./-]+\.md),? (?:section )?"([^"]+)"/g)].map(([, page, heading]) => ({ page, anchor: slug(heading), shown: heading })),
        // Markdown links are checked above; here the bare `page.md#anchor` of comments and prose
        ...[...text.matchAll(/(?<!\]\()(?<![\w./-])([\w./-]+\.md)#([\w-]+)/g)].map(([, page, anchor]) => ({ page, anchor, shown: anchor })),
      ];
      for (const ref of refs) {
        named += 1;
        const candidates = [path.join(root, path.dirname(file), ref.page), path.join(root, ref.page)];
        const found = candidates.find((c) => existsSync(c));
        if (!found) missing.push(`${file}: ${ref.page} (no such file)`);
        else if (!read(path.relative(root, found)).anchors.has(ref.anchor)) missing.push(`${file}: ${ref.page}, "${ref.shown}" (no such section)`);
      }
    }
    expect(missing).to.deep.equal([]);
    expect(named, 'the chart names sections of the docs').to.be.greaterThan(0);
  });

  it('every `npm run <script>` named in a page is a script of package.json', () => {
    const scripts = Object.keys((JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);
    const missing: string[] = [];
    for (const file of PAGES) {
      for (const [, name] of read(file).text.matchAll(/npm run ([\w:.-]*\w)(?![\w:*-])/g))
        if (!scripts.includes(name)) missing.push(`${file}: npm run ${name}`);
    }
    expect(missing).to.deep.equal([]);
  });

  it('the README fits on a few screens and starts with the two commands (serve, test)', () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    expect(readme.split('\n').length).to.be.at.most(300);
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(firstBlock).to.contain('npm run serve').and.contain('npm test');
  });

  it('DESIGN.md stays a short index that links every design note, and each note ends with the files holding its decisions', () => {
    const index = readFileSync(path.join(root, 'DESIGN.md'), 'utf8');
    expect(index.split('\n').length).to.be.at.most(80);
    expect(DESIGN_NOTES).to.not.be.empty;
    for (const note of DESIGN_NOTES) {
      expect(index, note).to.contain(`](${note})`);
      const text = readFileSync(path.join(root, note), 'utf8');
      const files = text.slice(text.lastIndexOf('\n## Files\n'));
      expect(text.lastIndexOf('\n## Files\n'), note).to.be.greaterThan(0);
      expect(files.match(/^- \[`[^`]+`\]\(\.\.\/\.\.\/[^)]+\)$/gm) ?? [], note).to.not.be.empty;
    }
  });

  it('every docs/ page says first who it is for', () => {
    for (const file of docFiles().filter((f) => f.startsWith('docs/'))) {
      const firstParagraph = readFileSync(path.join(root, file), 'utf8').split('\n\n')[1] ?? '';
      expect(firstParagraph, file).to.match(/^For |\bis for\b/);
    }
  });
});
