import { expect } from 'chai';
import { UsageError } from '../../interfaces/cli/cli-errors.js';
import { describeParams, parseToolParams, type ToolInputSchema } from '../../interfaces/cli/tool-params.js';

const schema: ToolInputSchema = {
  properties: {
    name: { type: 'string', description: 'a name' },
    count: { type: 'integer' },
    ratio: { type: 'number' },
    final: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    sizes: { type: 'array', items: { type: 'integer' } },
    answers: { type: 'object' },
    mode: { type: 'string', enum: ['a', 'b'] },
    anything: {},
  },
  required: ['name'],
};

function usageError(act: () => unknown): string {
  try {
    act();
  } catch (err) {
    expect(err).to.be.instanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error('expected a UsageError');
}

describe('CLI tool parameters from --name value flags', () => {
  it('types values by the schema', () => {
    const out = parseToolParams('t', schema, [
      '--name',
      'db',
      '--count',
      '3',
      '--ratio',
      '-0.5',
      '--tags',
      'a',
      '--tags',
      'b',
      '--sizes',
      '1',
      '--answers',
      '{"k": [1]}',
      '--mode',
      'b',
      '--anything',
      '{"x":1}',
    ]);
    expect(out).to.deep.equal({ name: 'db', count: 3, ratio: -0.5, tags: ['a', 'b'], sizes: [1], answers: { k: [1] }, mode: 'b', anything: { x: 1 } });
  });

  it('reads a bare boolean flag as true and takes an explicit true/false', () => {
    expect(parseToolParams('t', schema, ['--final', '--name', 'x'])).to.deep.equal({ final: true, name: 'x' });
    expect(parseToolParams('t', schema, ['--final', 'false'])).to.deep.equal({ final: false });
    expect(parseToolParams('t', schema, ['--final=true'])).to.deep.equal({ final: true });
  });

  it('takes --name=value for values that start with --, and keeps a non-JSON value of an untyped parameter as text', () => {
    expect(parseToolParams('t', schema, ['--name=--weird', '--anything', 'plain text'])).to.deep.equal({ name: '--weird', anything: 'plain text' });
  });

  it('lets flags override --json values; the first flag of an array replaces the file’s array', () => {
    const out = parseToolParams('t', schema, ['--count', '2', '--tags', 'z'], { name: 'from-file', count: 1, tags: ['a', 'b'] });
    expect(out).to.deep.equal({ name: 'from-file', count: 2, tags: ['z'] });
  });

  it('refuses unknown, repeated, valueless, mistyped and stray arguments, naming them', () => {
    expect(usageError(() => parseToolParams('t', schema, ['--nope', '1']))).to.include('Unknown parameter --nope for tool t; its parameters are: --name');
    expect(usageError(() => parseToolParams('t', { properties: {} }, ['--x']))).to.include('it takes no parameters');
    expect(usageError(() => parseToolParams('t', schema, ['--name', 'a', '--name', 'b']))).to.include('--name of t is given more than once');
    expect(usageError(() => parseToolParams('t', schema, ['--name']))).to.include('--name of t needs a value');
    expect(usageError(() => parseToolParams('t', schema, ['--count', '']))).to.include('expects a number');
    expect(usageError(() => parseToolParams('t', schema, ['--sizes', 'x']))).to.include('--sizes of t expects a number');
    expect(usageError(() => parseToolParams('t', schema, ['--answers', 'null']))).to.include('expects a JSON object');
    expect(usageError(() => parseToolParams('t', schema, ['stray']))).to.include('Unexpected argument "stray"');
    expect(usageError(() => parseToolParams('t', schema, ['--']))).to.include('Unexpected argument "--"');
  });

  it('describes each parameter for --help, with enums and the required mark', () => {
    const text = describeParams(schema);
    expect(text).to.match(/--name <string>\s+a name \(required\)/);
    expect(text).to.include('--mode <a|b>');
    expect(describeParams({})).to.equal('  (no parameters)');
  });
});
