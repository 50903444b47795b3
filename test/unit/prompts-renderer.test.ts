import { expect } from 'chai';
import { ValidationError } from '../../domain/errors.js';
import { PromptLibrary } from '../../domain/prompts/prompt-library.js';
import { renderPrompt } from '../../domain/prompts/prompt-renderer.js';
import { promptFiles, promptMarkdown } from '../support/prompt-files.js';

const library = PromptLibrary.fromFiles(
  promptFiles({
    'debug-pod.md': promptMarkdown(
      [
        'name: debug-pod',
        'description: Debug a failing pod',
        'arguments:',
        '  - name: pod',
        '    description: Pod name',
        '    required: true',
        '  - name: namespace',
        '    description: Namespace',
        '    required: true',
        '  - name: symptom',
        '    description: What you see',
      ].join('\n'),
      'Pod {{pod}} in {{ namespace }} shows: {{symptom}}. Keep {{undeclared}} as is.\n',
    ),
    'skills/deploy/SKILL.md': promptMarkdown('description: Deploy {{app}}\narguments:\n  - name: app\n    required: true', 'Deploy {{app}} using the scripts.'),
    'skills/deploy/scripts/run.sh': { text: '#!/bin/sh\necho {{app}}\n', mode: 0o755 },
  }),
);

function render(name: string, args?: Record<string, unknown>) {
  return renderPrompt(library.get(name)!, args);
}

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a throw');
}

describe('prompt renderer', () => {
  it('substitutes declared arguments and leaves undeclared placeholders alone', () => {
    const out = render('debug-pod', { pod: 'web-1', namespace: 'prod', symptom: 'CrashLoopBackOff' });
    expect(out.description).to.equal('Debug a failing pod');
    expect(out.messages).to.deep.equal([
      {
        role: 'user',
        content: { type: 'text', text: 'Pod web-1 in prod shows: CrashLoopBackOff. Keep {{undeclared}} as is.\n' },
      },
    ]);
    expect(out).to.not.have.property('files');
  });

  it('renders an absent optional argument as empty text', () => {
    const out = render('debug-pod', { pod: 'a', namespace: 'b' });
    expect(out.messages[0].content.text).to.equal('Pod a in b shows: . Keep {{undeclared}} as is.\n');
  });

  it('does not expand placeholders that arrive inside values', () => {
    const out = render('debug-pod', { pod: '{{namespace}}', namespace: 'ns' });
    expect(out.messages[0].content.text).to.contain('Pod {{namespace}} in ns');
  });

  it('accepts numbers and booleans as text', () => {
    const out = render('debug-pod', { pod: 7, namespace: true });
    expect(out.messages[0].content.text).to.contain('Pod 7 in true');
  });

  it('names a missing required argument', () => {
    const e = thrown(() => render('debug-pod', { namespace: 'x' }));
    expect(e).to.be.instanceOf(ValidationError);
    expect(e.message).to.equal('Missing required argument: pod');
  });

  it('names every missing required argument, counting empty and null values as missing', () => {
    const e = thrown(() => render('debug-pod', { pod: '  ', namespace: null }));
    expect(e.message).to.equal('Missing required arguments: pod, namespace');
  });

  it('refuses object values', () => {
    const e = thrown(() => render('debug-pod', { pod: { a: 1 }, namespace: 'x' }));
    expect(e).to.be.instanceOf(ValidationError);
    expect(e.message).to.equal('Invalid argument pod: expected a string, number or boolean');
  });

  it('ignores inherited properties of the arguments object', () => {
    const args = Object.create({ pod: 'inherited' }) as Record<string, unknown>;
    args.namespace = 'x';
    expect(thrown(() => render('debug-pod', args)).message).to.equal('Missing required argument: pod');
  });

  it('renders a skill with its files base64-encoded and modes as octal text', () => {
    const out = render('deploy', { app: 'shop' });
    expect(out.description).to.equal('Deploy {{app}}');
    expect(out.messages[0].content.text).to.equal('Deploy shop using the scripts.');
    expect(out.files).to.deep.equal([{ path: 'scripts/run.sh', content: Buffer.from('#!/bin/sh\necho {{app}}\n').toString('base64'), mode: '0755' }]);
  });
});
