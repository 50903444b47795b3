import { expect } from 'chai';
import { ListPrompts } from '../../../application/prompts/list-prompts.js';
import { filesWith, promptsHarness } from '../../support/prompts-harness.js';

describe("application/prompts/list-prompts: every prompt's metadata from the resolved source", () => {
  it('lists the built-ins without a repository, and a repository override with its scrubbed URL as the source', async () => {
    const h = promptsHarness();
    const list = new ListPrompts(h.resolver);
    const builtin = await list.execute({});
    expect(builtin.source).to.equal('built-in');
    expect(builtin.prompts.map((p) => p.name)).to.deep.equal(['builtin-one', 'builtin-two']);
    expect(builtin.prompts[0]).to.deep.include({ description: 'builtin-one prompt' });
    h.serve('https://github.com/acme/prompts', filesWith('mine'));
    const override = await list.execute({ repo: 'https://user:pw@github.com/acme/prompts' });
    expect(override.prompts.map((p) => p.name)).to.deep.equal(['mine']);
    expect(override.source).to.not.contain('pw');
  });
});
