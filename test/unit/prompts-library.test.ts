import { expect } from 'chai';
import { PromptLibrary } from '../../domain/prompts/prompt-library.js';
import { promptFiles, promptMarkdown } from '../support/prompt-files.js';

describe('prompt library loading', () => {
  it('loads top-level markdown prompts, names from frontmatter or the file stem, sorted', () => {
    const lib = PromptLibrary.fromFiles(
      promptFiles({
        'b.md': promptMarkdown('description: B prompt', 'b'),
        'a-file.md': promptMarkdown('name: alpha\ndescription: A prompt\narguments:\n  - name: x', 'a'),
        'README.md': '# not a prompt',
        'notes.txt': 'ignored',
        'nested/c.md': promptMarkdown('description: nested plain prompt', 'c'),
      }),
    );
    expect(lib.list()).to.deep.equal([
      { name: 'alpha', description: 'A prompt', arguments: [{ name: 'x', description: '', required: false }] },
      { name: 'b', description: 'B prompt' },
    ]);
    expect(lib.warnings).to.deep.equal([]);
  });

  it('skips malformed files with a warning and keeps the rest', () => {
    const lib = PromptLibrary.fromFiles(
      promptFiles({
        'good.md': promptMarkdown('description: fine', 'ok'),
        'no-frontmatter.md': 'just text',
        'bad-yaml.md': promptMarkdown('description: [unclosed', 'x'),
        'not-a-map.md': promptMarkdown('- a\n- b', 'x'),
        'no-description.md': promptMarkdown('name: nodesc', 'x'),
        'bad-args.md': promptMarkdown('description: d\narguments: nope', 'x'),
        'dup-args.md': promptMarkdown('description: d\narguments:\n  - name: a\n  - name: a', 'x'),
        'bad name.md': promptMarkdown('description: d', 'x'),
        'alias-bomb.md': promptMarkdown(
          'a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c]\ndescription: d',
          'x',
        ),
      }),
    );
    expect(lib.list().map((p) => p.name)).to.deep.equal(['good']);
    const reasons = Object.fromEntries(lib.warnings.map((w) => [w.path, w.reason]));
    expect(Object.keys(reasons).sort()).to.deep.equal([
      'alias-bomb.md',
      'bad name.md',
      'bad-args.md',
      'bad-yaml.md',
      'dup-args.md',
      'no-description.md',
      'no-frontmatter.md',
      'not-a-map.md',
    ]);
    expect(reasons['no-frontmatter.md']).to.match(/no YAML frontmatter/);
    expect(reasons['bad-yaml.md']).to.match(/invalid YAML frontmatter/);
    expect(reasons['dup-args.md']).to.match(/declared twice/);
    expect(reasons['alias-bomb.md']).to.match(/invalid YAML frontmatter/);
  });

  it('keeps the first of two prompts with the same name and warns', () => {
    const lib = PromptLibrary.fromFiles(
      promptFiles({
        'a.md': promptMarkdown('name: same\ndescription: first', ''),
        'b.md': promptMarkdown('name: same\ndescription: second', ''),
      }),
    );
    expect(lib.list()).to.deep.equal([{ name: 'same', description: 'first' }]);
    expect(lib.warnings[0]).to.deep.include({ path: 'b.md' });
  });

  it('treats folders holding SKILL.md as skills with their other files, outermost folder winning', () => {
    const lib = PromptLibrary.fromFiles(
      promptFiles({
        'skills/triage/SKILL.md': promptMarkdown('description: triage', 'go'),
        'skills/triage/ref/checklist.md': 'check',
        'skills/triage/inner/SKILL.md': 'nested skill file is just a file',
        'top.md': promptMarkdown('description: top', 't'),
      }),
    );
    expect(lib.list().map((p) => p.name)).to.deep.equal(['top', 'triage']);
    expect(lib.get('triage')!.files.map((f) => f.path)).to.deep.equal(['inner/SKILL.md', 'ref/checklist.md']);
  });

  it('treats a source with SKILL.md at its root as one skill', () => {
    const lib = PromptLibrary.fromFiles(
      promptFiles({ 'SKILL.md': promptMarkdown('description: root skill', 'x'), 'other.md': 'a file of the skill' }),
      'my-label',
    );
    expect(lib.list()).to.deep.equal([{ name: 'my-label', description: 'root skill' }]);
    expect(lib.get('my-label')!.files.map((f) => f.path)).to.deep.equal(['other.md']);
  });
});
