import { expect } from 'chai';
import { MalformedPromptError, parsePromptFile, PROMPT_NAME } from '../../../domain/prompts/prompt-frontmatter.js';

const file = (frontmatter: string, body = 'Hello {{who}}.\n') => `---\n${frontmatter}\n---\n\n${body}`;

describe('prompts: a prompt file and its frontmatter', () => {
  it('reads the name, description, arguments and body', () => {
    const parsed = parsePromptFile(
      file('name: greet\ndescription: Greets someone\narguments:\n  - name: who\n    description: whom\n    required: true\n  - name: tone'),
      'fallback',
    );
    expect(parsed).to.deep.equal({
      name: 'greet',
      description: 'Greets someone',
      arguments: [
        { name: 'who', description: 'whom', required: true },
        { name: 'tone', description: '', required: false },
      ],
      body: 'Hello {{who}}.\n',
    });
  });

  it("takes the file name when the frontmatter names none; a BOM, CRLF and YAML's ... end are fine", () => {
    expect(parsePromptFile('\uFEFF---\r\ndescription: d\r\n...\r\nbody', 'from-file').name).to.equal('from-file');
    expect(parsePromptFile('\uFEFF---\r\ndescription: d\r\n...\r\nbody', 'from-file').body).to.equal('body');
  });

  const malformed: [string, string, RegExp][] = [
    ['no frontmatter', 'just text', /no YAML frontmatter/],
    ['frontmatter not on the first line', `\n${file('description: d')}`, /no YAML frontmatter/],
    ['YAML that does not parse', file('description: [unclosed'), /invalid YAML frontmatter/],
    ['a key given twice', file('description: a\ndescription: b'), /invalid YAML frontmatter/],
    ['a list, not a mapping', file('- a\n- b'), /must be a YAML mapping/],
    ['no description', file('name: x'), /invalid frontmatter: description/],
    ['a name with a slash (names travel in URL paths)', file('name: ../x\ndescription: d'), /invalid frontmatter: name/],
    ['an argument name with a space', file('description: d\narguments:\n  - name: a b'), /arguments\.0\.name/],
    ['an argument declared twice', file('description: d\narguments:\n  - name: a\n  - name: a'), /argument a is declared twice/],
    ['required as a string', file('description: d\narguments:\n  - name: a\n    required: "yes"'), /arguments\.0\.required/],
    // aliases that would expand to a huge document are refused, never expanded
    [
      'a billion laughs',
      file(
        `a: &a [x, x, x, x, x, x, x, x, x, x]\n${Array.from({ length: 8 }, (_, i) => `${'bcdefghi'[i]}: &${'bcdefghi'[i]} [${Array(10).fill(`*${'abcdefgh'[i]}`).join(', ')}]`).join('\n')}\ndescription: d`,
      ),
      /invalid YAML frontmatter/,
    ],
  ];
  for (const [name, text, why] of malformed)
    it(`refuses ${name}`, () => {
      expect(() => parsePromptFile(text, 'ok')).to.throw(MalformedPromptError, why);
    });

  it('refuses a file whose fallback name is not a name, when the frontmatter names none', () => {
    expect(() => parsePromptFile(file('description: d'), 'my prompt')).to.throw(MalformedPromptError, /no usable name/);
    expect(PROMPT_NAME.test('a'.repeat(128))).to.equal(true);
    expect(PROMPT_NAME.test('a'.repeat(129))).to.equal(false);
  });
});
