import { expect } from 'chai';
import { DeliverToGit } from '../../../application/deployment/deliver-to-git.js';
import { SolutionSessions } from '../../../application/deployment/solution-sessions.js';
import type { ToolContext } from '../../../application/tool-handler.js';
import { ANONYMOUS_CALLER } from '../../../domain/auth/caller.js';
import { NO_SECOND_APPROVER } from '../../../domain/auth/session-owner.js';
import type { SolutionState } from '../../../domain/deployment/solution.js';
import { ValidationError } from '../../../domain/errors.js';
import { FakeSessionStore } from '../../fakes/fake-session-store.js';
import { webManifests } from '../../support/deploy-kit.js';
import { deliverySettings, MemoryPublisher, RecordingPullRequests, SERVER_GIT_TOKEN } from '../../support/git-delivery-kit.js';
import { InstantClock } from '../../support/instant-clock.js';
import { rejection } from '../../support/rejection.js';

const context: ToolContext = { requestId: 'req-1', caller: ANONYMOUS_CALLER };
const repo = 'https://github.com/team/shop.git';

/** DeliverToGit over a repository in memory and a solution whose web manifests were generated (none with `generated` false). */
async function delivery(generated = true) {
  const sessions = new SolutionSessions(new FakeSessionStore({ clock: new InstantClock() }), NO_SECOND_APPROVER);
  const manifests = generated ? { manifests: { objects: webManifests(), yaml: '', attempts: 1, generatedAt: '2026-12-03T09:00:00.000Z' } } : {};
  const state = {
    intent: 'nginx for the shop',
    solution: { score: 90, description: 'nginx', resources: [], patternsApplied: [], policiesRespected: [], droppedResources: [] },
    policies: [],
    questions: { required: [], basic: [], advanced: [], open: [] },
    answers: { required: {} },
    ...manifests,
  } as unknown as SolutionState;
  const session = await sessions.create(state, context);
  const publisher = new MemoryPublisher({});
  const pullRequests = new RecordingPullRequests();
  const deliver = new DeliverToGit({ publisher, pullRequests }, sessions, deliverySettings());
  return { publisher, pullRequests, id: session.id, run: (input: object) => deliver.execute(session.id, { repo, ...input }, context), sessions };
}

describe('application/deployment/deliver-to-git: the manifests pushed to a branch, the cluster untouched', () => {
  it("pushes one file per object to the solution's branch with the server token, and records the delivery on the session", async () => {
    const { publisher, pullRequests, id, run, sessions } = await delivery();
    const out = await run({});
    expect(publisher.requests).to.have.length(1);
    expect(publisher.requests[0]).to.deep.include({ branch: `svc/${id}`, token: SERVER_GIT_TOKEN });
    expect(publisher.written.map((f) => f.path)).to.have.length(2);
    expect(publisher.written.map((f) => f.content).join('\n'))
      .to.contain('kind: Deployment')
      .and.contain('kind: Service');
    expect(pullRequests.specs).to.deep.equal([]);
    expect(out).to.deep.include({ status: 'pushed', delivery: 'git' });
    expect(out.gitops).to.deep.include({ repository: repo, branch: `svc/${id}`, branchCreated: true });
    const { gitDelivery } = (await sessions.load(id)).state;
    expect(gitDelivery).to.deep.include({ repository: repo, branch: `svc/${id}`, commit: out.gitops.commit });
  });

  it('opens a pull request when asked and names it in the answer', async () => {
    const { pullRequests, run } = await delivery();
    const out = await run({ pullRequest: true });
    expect(pullRequests.specs).to.have.length(1);
    expect(out.gitops.pullRequest).to.deep.include({ number: 12 });
    expect(out.nextStep).to.contain('https://github.com/team/shop/pull/12');
  });

  it('refuses before any push a repository whose host is not allowed, and a solution without manifests', async () => {
    const denied = await delivery();
    const refused = await rejection(denied.run({ repo: 'https://evil.example/team/shop.git' }));
    expect(refused).to.be.instanceOf(ValidationError);
    expect(refused.message).to.contain('evil.example is not in the allowed repository hosts');
    expect(denied.publisher.requests).to.deep.equal([]);
    const early = await delivery(false);
    const e = await rejection(early.run({}));
    expect(e).to.be.instanceOf(ValidationError);
    expect(e.message).to.contain('no manifests have been generated');
    expect(early.publisher.requests).to.deep.equal([]);
  });
});
