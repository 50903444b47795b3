import { expect } from 'chai';
import { pushWithRequest, type GitDeliveryPorts, type PushRequest } from '../../application/gitops/push-with-request.js';
import { ChangeRecorder, type WriteContext } from '../../application/ledger/change-recorder.js';
import { GIT_FILES_LISTED, type ChangeEntry } from '../../domain/ledger/change-entry.js';
import { DependencyError, ValidationError } from '../../domain/errors.js';
import type { ChangeLedger } from '../../domain/ports/change-ledger.js';
import { GitPublishError, type GitPublisher, type PublishOutcome, type PublishRequest } from '../../domain/ports/git-publisher.js';
import { PullRequestError, type OpenedPullRequest, type PullRequestHost, type PullRequestSpec } from '../../domain/ports/pull-request-host.js';
import { FakeChangeLedger } from '../fakes/fake-change-ledger.js';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { CapturingLogger } from '../support/capturing-logger.js';
import { FakeClock } from '../support/fake-clock.js';
import { rejection } from '../support/rejection.js';

const TOKEN = 'canary-unit-token-93be1f0c';
const BASIC = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');

/** A publisher that answers what the test says: an outcome, or an error. */
class ScriptedPublisher implements GitPublisher {
  answer: PublishOutcome | Error = outcome();
  async publish(request: PublishRequest): Promise<PublishOutcome> {
    await request.change({ list: async () => [], read: async () => undefined });
    if (this.answer instanceof Error) throw this.answer;
    return this.answer;
  }
}

class ScriptedPullRequests implements PullRequestHost {
  answer: OpenedPullRequest | Error = { url: 'https://github.example/team/shop/pull/7', number: 7, existing: false };
  async open(_spec: PullRequestSpec): Promise<OpenedPullRequest> {
    if (this.answer instanceof Error) throw this.answer;
    return this.answer;
  }
}

function outcome(over: Partial<PublishOutcome> = {}): PublishOutcome {
  return {
    commit: 'c0ffee'.padEnd(40, '0'),
    branch: 'svc/x',
    baseBranch: 'main',
    branchExisted: false,
    branchCreated: true,
    changed: true,
    files: ['web/a.yaml'],
    ...over,
  };
}

describe('pushWithRequest records every git delivery in the change ledger (fakes of the ports)', () => {
  let ledger: FakeChangeLedger;
  let publisher: ScriptedPublisher;
  let pulls: ScriptedPullRequests;
  let ports: GitDeliveryPorts;
  let ids: string[];
  const context = (): WriteContext => ({
    caller: { id: 'tokens-file:svc:alice', username: 'alice', groups: [], roles: ['viewer', 'operator'], kind: 'tokens-file' },
    tool: 'remediate',
    sessionId: `rem_${'b'.repeat(32)}`,
    request: 'web is down',
    approval: { mode: 'manual', by: 'alice' },
    ledgerIds: ids,
  });
  const request = (over: Partial<PushRequest> = {}): PushRequest => ({
    location: {
      url: `https://bot:${TOKEN}@git.example/team/shop.git`,
      source: 'https://***:***@git.example/team/shop.git',
      scheme: 'https',
      host: 'git.example',
      subPath: '',
      branch: 'svc/x',
    },
    token: TOKEN,
    message: 'svc: fix',
    author: { name: 'svc', email: 'svc@localhost' },
    timeoutMs: 1000,
    change: async () => [{ path: 'web/a.yaml', content: 'x: 1\n' }],
    pullRequest: { provider: 'github', apiUrl: 'https://api.github.example', project: 'team/shop' },
    requestText: () => ({ title: 't', body: 'b' }),
    recording: { context: context(), objects: [{ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'x', name: 'web' }] },
    ...over,
  });
  const only = async (): Promise<ChangeEntry> => {
    const { entries } = await ledger.list({}, { limit: 10 });
    expect(entries).to.have.length(1);
    return entries[0];
  };

  beforeEach(() => {
    ledger = new FakeChangeLedger(new FakeClock());
    publisher = new ScriptedPublisher();
    pulls = new ScriptedPullRequests();
    ids = [];
    ports = { publisher, pullRequests: pulls, recorder: new ChangeRecorder(ledger, new FakeCluster()) };
  });

  it('a push with its pull request: one applied entry, its id answered and added to the run, the credentials nowhere', async () => {
    const pushed = await pushWithRequest(ports, request());
    const e = await only();
    expect(pushed.ledgerId).to.equal(e.id);
    expect(ids).to.deep.equal([e.id]);
    expect(e.target).to.deep.equal({ apiVersion: 'git', kind: 'GitBranch', name: 'svc/x' });
    expect(e.git).to.deep.include({ repository: 'https://***:***@git.example/team/shop.git', commit: outcome().commit, pushed: true, fileCount: 1 });
    expect(e.git!.pullRequest).to.deep.equal({ url: 'https://github.example/team/shop/pull/7', number: 7, existing: false });
    expect(JSON.stringify(e)).to.not.include(TOKEN).and.not.include('bot:');
  });

  it('a refusal that echoes the token in every spelling is recorded as refused with the reason, scrubbed; the error names the entry', async () => {
    publisher.answer = new GitPublishError(`Push failed: remote said ${TOKEN} / Basic ${BASIC} / ${encodeURIComponent(TOKEN)}`, 403, 'forbidden');
    const e = await rejection(pushWithRequest(ports, request()));
    const entry = await only();
    expect(e).to.be.instanceOf(GitPublishError);
    expect(e.message).to.match(new RegExp(`\\(change ledger entry ${entry.id}\\)$`));
    expect(entry.outcome).to.deep.include({ status: 'refused', reason: 'forbidden' });
    expect(entry.git).to.deep.include({ files: [], fileCount: 0 });
    expect(entry.git!.commit).to.equal(undefined);
    expect(JSON.stringify(entry)).to.not.include(TOKEN).and.not.include(BASIC);
  });

  it('a remote that cannot be reached, or a file the change could not find, is failed; an unexpected error says nothing of itself', async () => {
    publisher.answer = new GitPublishError('Push failed: timed out after 1 s');
    await rejection(pushWithRequest(ports, request()));
    publisher.answer = new ValidationError('Deployment x/web was not found in the YAML files');
    await rejection(pushWithRequest(ports, request()));
    publisher.answer = new TypeError(`boom ${TOKEN}`);
    const odd = await rejection(pushWithRequest(ports, request()));
    expect(odd.message).to.equal(`boom ${TOKEN}`); // not a domain error: the tool runner hides it from the caller
    const { entries } = await ledger.list({}, { limit: 10 });
    expect(entries.map((x) => x.outcome)).to.deep.equal([
      { status: 'failed', message: 'the delivery failed unexpectedly' },
      { status: 'failed', message: 'Deployment x/web was not found in the YAML files' },
      { status: 'failed', message: 'Push failed: timed out after 1 s' },
    ]);
  });

  it('a pull request the host refuses after the push: applied, the host answer kept, the error rethrown', async () => {
    pulls.answer = new PullRequestError(`GitHub answered 500 for team/shop (token ${TOKEN})`);
    const e = await rejection(pushWithRequest(ports, request()));
    expect(e).to.be.instanceOf(PullRequestError);
    const entry = await only();
    expect(entry.outcome).to.deep.equal({ status: 'applied' });
    expect(entry.git!.commit).to.equal(outcome().commit);
    expect(entry.git!.pullRequestError).to.equal('GitHub answered 500 for team/shop (token ***)');
  });

  it('lists at most GIT_FILES_LISTED files and counts them all', async () => {
    const files = Array.from({ length: GIT_FILES_LISTED + 5 }, (_, i) => `f/${i}.yaml`);
    publisher.answer = outcome({ files });
    await pushWithRequest(ports, request({ pullRequest: undefined }));
    const entry = await only();
    expect(entry.git!.files).to.deep.equal(files.slice(0, GIT_FILES_LISTED));
    expect(entry.git!.fileCount).to.equal(GIT_FILES_LISTED + 5);
  });

  it('a ledger that fails does not undo the delivery: the answer carries ledgerError, the log says why', async () => {
    const broken: ChangeLedger = Object.assign(Object.create(ledger) as ChangeLedger, {
      append: async () => {
        throw new DependencyError('ledger', 'disk full');
      },
    });
    const logger = new CapturingLogger();
    const pushed = await pushWithRequest({ ...ports, recorder: new ChangeRecorder(broken, new FakeCluster(), logger) }, request());
    expect(pushed.outcome.commit).to.equal(outcome().commit);
    expect(pushed.ledgerId).to.equal(undefined);
    expect(pushed.ledgerError).to.equal('the change ledger could not record this change: disk full');
    expect(JSON.stringify(logger.lines)).to.include('disk full');
  });

  it('without a recording nothing is recorded', async () => {
    await pushWithRequest(ports, request({ recording: undefined }));
    expect((await ledger.list({}, { limit: 10 })).entries).to.deep.equal([]);
  });
});
