import { expect } from 'chai';
import { deliveryInput, fixDeliveryOutput, gitopsMarkOutput } from '../../../../domain/tools/outputs/gitops-output.js';
import { schemaCases } from '../../../support/schema-cases.js';

type Mark = Record<string, unknown> & { source?: Record<string, unknown> };
type Delivery = Record<string, unknown> & { pullRequest?: Record<string, unknown> };

describe('tool outputs: GitOps', () => {
  describe('the mark of an object a GitOps controller manages', () =>
    schemaCases<Mark>(
      gitopsMarkOutput,
      () => ({ controller: 'argocd', owner: 'Application argocd/shop', source: { repoURL: 'https://git.example/shop.git', path: 'deploy' } }),
      [
        ['a Flux owner without a known source', (m) => ((m.controller = 'flux'), delete m.source)],
        ['why git delivery is not possible', (m) => void (m.noGitDelivery = 'a Helm chart from a registry')],
      ],
      [
        ['another controller', (m) => void (m.controller = 'fleet')],
        ['a source without its path', (m) => void delete m.source!.path],
        ['no owner', (m) => void delete m.owner],
      ],
    ));

  describe('a change delivered as a commit', () =>
    schemaCases<Delivery>(
      fixDeliveryOutput,
      () => ({ repository: 'https://git.example/shop.git', branch: 'svc/fix', baseBranch: 'main', commit: 'abc', changed: true, files: ['deploy/web.yaml'] }),
      [
        ['a pull request', (d) => void (d.pullRequest = { url: 'https://git.example/pr/3', number: 3, existing: false })],
        ['a ledger error beside the commit', (d) => void (d.ledgerError = 'ledger unreachable')],
      ],
      [
        ['a pull request number that is not whole', (d) => void (d.pullRequest = { url: 'u', number: 3.5, existing: false })],
        ['no commit', (d) => void delete d.commit],
        ['files as one string', (d) => void (d.files = 'deploy/web.yaml')],
      ],
    ));

  it('delivery is git or live, nothing else', () => {
    expect(deliveryInput.options).to.deep.equal(['git', 'live']);
    expect(deliveryInput.safeParse('Git').success).to.equal(false);
  });
});
