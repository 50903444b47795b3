import { expect } from 'chai';
import { PromptLibrary } from '../../domain/prompts/prompt-library.js';
import { renderPrompt } from '../../domain/prompts/prompt-renderer.js';
import { envelopeHead } from '../../interfaces/http/envelope.js';
import { renderedHead } from '../../interfaces/http/render-head.js';
import { promptFiles, promptMarkdown } from '../support/prompt-files.js';

const declared = 'arguments:\n  - name: a\n    required: true\n  - name: b\n';

/** A prompt whose body is `body`, declaring a (required) and b. */
function promptWith(body: string, files: Record<string, { text: string; mode: number }> = {}) {
  const library = PromptLibrary.fromFiles(
    promptFiles({ 'p/SKILL.md': promptMarkdown(`name: p\ndescription: "Quote \\" and \u00e9"\n${declared}`, body), ...files }),
  );
  return library.get('p')!;
}

/** What the render fast lane must equal: the use case's answer serialized whole. */
const expected = (prompt: ReturnType<typeof promptWith>, source: string, args: Record<string, unknown>) =>
  envelopeHead({ ...renderPrompt(prompt, args), source }).toString();

describe('the serialized render (renderedHead)', () => {
  const bodies = [
    'Plain {{a}} and {{ b }}, {{undeclared}} kept.\n',
    '{{a}}{{a}}{{b}}',
    'No placeholder at all "quoted" \\ back\tslash\n',
    'Surrogates: \ud83d\ude00 {{a}} \ud83d\ude00',
    'Lone edges: \ud83d{{a}}\ude00',
    '\u2028 line separator {{a}} \u0000 nul',
  ];
  const values: Record<string, unknown>[] = [
    { a: 'x' },
    { a: 'with "quotes" and \\ and {{b}}', b: 'second' },
    { a: 7, b: true },
    { a: 'emoji \ud83d\ude00', b: null },
    { a: '\ude00 starts low', b: 'ends high \ud83d' },
    { a: '\n\t<script>\u2028' },
  ];

  it('gives the bytes of the whole answer serialized at once, for every body and value, twice (kept pieces)', () => {
    for (const body of bodies) {
      const prompt = promptWith(body);
      for (const args of values) {
        for (let i = 0; i < 2; i++)
          expect(renderedHead(prompt, 'built-in', args).toString(), `${body} ${JSON.stringify(args)}`).to.equal(expected(prompt, 'built-in', args));
      }
    }
  });

  it('carries a skill folder files and follows a change of source', () => {
    const prompt = promptWith('Run {{a}}', { 'p/run.sh': { text: '#!/bin/sh\necho {{a}}\n', mode: 0o755 } });
    expect(renderedHead(prompt, 'one', { a: 'z' }).toString()).to.equal(expected(prompt, 'one', { a: 'z' }));
    expect(renderedHead(prompt, 'two', { a: 'z' }).toString()).to.equal(expected(prompt, 'two', { a: 'z' }));
    expect(renderedHead(prompt, 'two', { a: 'z' }).toString()).to.contain('"files":[{"path":"run.sh"');
  });

  it('throws the renderer errors: a missing required argument, a value of the wrong type', () => {
    const prompt = promptWith('{{a}}');
    expect(() => renderedHead(prompt, 's', {})).to.throw('Missing required argument: a');
    expect(() => renderedHead(prompt, 's', { a: ['x'] })).to.throw('Invalid argument a: expected a string, number or boolean');
  });
});
