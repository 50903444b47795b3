import { expect } from 'chai';
import { commitMessage, pullRequestText } from '../../../application/deployment/delivery-text.js';
import type { ToolContext } from '../../../application/tool-handler.js';
import { rolesUpTo } from '../../../domain/auth/caller.js';
import type { SolutionState } from '../../../domain/deployment/solution.js';

const state = (over: Partial<SolutionState> = {}): SolutionState => ({
  intent: 'an nginx   web\nserver for the shop',
  solution: { score: 90, description: 'nginx [click](https://evil.example)', resources: [], patternsApplied: [], policiesRespected: [], droppedResources: [] },
  policies: [],
  answers: {},
  ...over,
});
const context: ToolContext = {
  requestId: 'req-7',
  caller: { id: 'tokens-file:svc:alice', username: 'alice`**', groups: [], roles: [...rolesUpTo('operator')], kind: 'tokens-file' },
};

describe('application/deployment/delivery-text: the commit message and pull request of a git delivery', () => {
  it('puts the intent on one line in the subject and whole in the body, with the solution id', () => {
    const message = commitMessage(state({ intent: `deploy ${'x'.repeat(100)}` }), 'sol_1');
    const [subject, blank, intent, solution] = message.split('\n');
    expect(subject)
      .to.have.length(5 + 60)
      .and.match(/^svc: deploy x+…$/);
    expect(blank).to.equal('');
    expect(intent).to.equal(`Intent: deploy ${'x'.repeat(100)}`);
    expect(solution).to.equal('Solution: sol_1');
    expect(commitMessage(state(), 'sol_1')).to.match(/^svc: an nginx web server for the shop\n/);
  });

  it('lists the questions answered by stage, the files, and who asked, each user text inside a code span', () => {
    const { title, body } = pullRequestText(
      state({ answers: { required: { name: 'web', ports: ['80', '443'] }, open: { open: 'use `sh -c` here' } } }),
      'sol_1',
      ['shop/web.yaml'],
      context,
    );
    expect(title).to.equal('svc: an nginx web server for the shop');
    expect(body).to.contain('- required `name`: `web`').and.contain('- required `ports`: `80, 443`');
    // a backtick in user text cannot close the code span and restyle the page
    expect(body).to.contain("- open `open`: `use 'sh -c' here`");
    expect(body).to.contain("**Requested by:** `alice'**` through svc (request `req-7`)");
    expect(body).to.contain('`nginx [click](https://evil.example)`');
    expect(body).to.contain('- `shop/web.yaml`');
  });

  it('says when no question was answered', () => {
    expect(pullRequestText(state(), 'sol_1', [], context).body).to.contain('- none (the suggested defaults)');
  });
});
