import { expect } from 'chai';
import { RenderPrompt } from '../../../application/prompts/render-prompt.js';
import type { PromptSourceResolver } from '../../../application/prompts/prompt-source-resolver.js';
import { ERROR_CODES, NotFoundError, ValidationError } from '../../../domain/errors.js';
import { PromptLibrary } from '../../../domain/prompts/prompt-library.js';
import { promptFiles, promptMarkdown } from '../../support/prompt-files.js';

const resolved = {
  library: PromptLibrary.fromFiles(
    promptFiles({ 'deploy.md': promptMarkdown('description: Deploy {{app}}\narguments:\n  - name: app\n    required: true', 'Deploy {{app}} now.') }),
  ),
  source: 'https://github.com/acme/prompts',
};
// `of` and `promptOf` take a source already resolved: the resolver is not asked
const render = new RenderPrompt(undefined as unknown as PromptSourceResolver);

describe('application/prompts/render-prompt: one prompt with its arguments substituted', () => {
  it('substitutes the arguments and names the source', () => {
    const out = render.of(resolved, 'deploy', { app: 'web' });
    expect(out.source).to.equal('https://github.com/acme/prompts');
    expect(JSON.stringify(out)).to.contain('Deploy web now.');
  });

  it('answers 404 PROMPT_NOT_FOUND for an unknown name', () => {
    expect(() => render.of(resolved, 'nope'))
      .to.throw(NotFoundError)
      .with.property('code', ERROR_CODES.PROMPT_NOT_FOUND);
  });

  it('refuses a missing required argument', () => {
    expect(() => render.of(resolved, 'deploy', {})).to.throw(ValidationError, 'Missing required argument: app');
  });
});
