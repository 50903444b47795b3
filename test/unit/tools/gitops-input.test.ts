import { expect } from 'chai';
import { gitopsInput } from '../../../domain/tools/gitops-input.js';
import { schemaCases } from '../../support/schema-cases.js';

type Input = Record<string, unknown>;

describe("tools: deployManifests' gitops input", () => {
  schemaCases<Input>(
    gitopsInput,
    () => ({ repo: 'https://git.example/shop.git' }),
    [
      ['every field', (g) => Object.assign(g, { path: 'web/', branch: 'svc/sol_1', baseBranch: 'main', commitMessage: 'Deploy web', pullRequest: true })],
      ['a repo with blanks around it', (g) => void (g.repo = '  https://git.example/shop.git  ')],
    ],
    [
      ['no repo', (g) => void delete g.repo],
      ['a blank repo', (g) => void (g.repo = '   ')],
      ['a repo past 2000 characters', (g) => void (g.repo = `https://git.example/${'x'.repeat(2000)}`)],
      ['an unknown key (a typo of a field is refused, not ignored)', (g) => void (g.pullrequest = true)],
      ['a token in the input (credentials come in a header)', (g) => void (g.token = 'ghp_x')],
      ['a blank commit message', (g) => void (g.commitMessage = ' ')],
      ['pullRequest as a string', (g) => void (g.pullRequest = 'true')],
    ],
  );

  it('trims the repo and the commit message', () => {
    expect(gitopsInput.parse({ repo: ' https://git.example/a ', commitMessage: ' m ' })).to.deep.equal({ repo: 'https://git.example/a', commitMessage: 'm' });
  });
});
