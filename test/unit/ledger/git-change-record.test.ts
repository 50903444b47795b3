import { expect } from 'chai';
import { gitChangeRecord, type PlannedPush } from '../../../application/ledger/git-change-record.js';
import type { WriteContext } from '../../../application/ledger/change-recorder.js';
import { rolesUpTo } from '../../../domain/auth/caller.js';
import { DependencyError } from '../../../domain/errors.js';
import { GIT_FILES_LISTED } from '../../../domain/ledger/change-entry.js';
import { GitPublishError, type PublishOutcome } from '../../../domain/ports/git-publisher.js';

const token = 'ghp_secrettoken123456';
const context: WriteContext = {
  caller: { id: 'tokens-file:svc:alice', username: 'alice', groups: [], roles: [...rolesUpTo('operator')], kind: 'tokens-file' },
  tool: 'deployManifests',
  sessionId: 'dep_1',
  request: 'r'.repeat(5000),
  approval: { mode: 'manual', by: 'alice' },
};
const planned: PlannedPush = {
  repository: `https://x-access-token:${token}@git.example/acme/deploy.git?token=${token}`,
  branch: 'svc/web',
  objects: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' }],
  token,
};
const pushed: PublishOutcome = {
  commit: 'c0ffee',
  branch: 'svc/web',
  baseBranch: 'main',
  branchExisted: false,
  branchCreated: true,
  changed: true,
  files: ['apps/web.yaml'],
};

describe('application/ledger/git-change-record: the ledger record of a git delivery', () => {
  it('records a push to the branch: where it went, which objects it changes, no before state and no inverse', () => {
    const record = gitChangeRecord(context, planned, {
      outcome: pushed,
      pullRequest: { url: 'https://git.example/acme/deploy/pull/7', number: 7, existing: false },
    });
    expect(record).to.deep.include({
      type: 'change',
      tool: 'deployManifests',
      sessionId: 'dep_1',
      target: { apiVersion: 'git', kind: 'GitBranch', name: 'svc/web' },
      before: null,
      change: { method: 'push' },
      outcome: { status: 'applied' },
      inverse: null,
    });
    expect(record.git).to.deep.include({ branch: 'svc/web', baseBranch: 'main', commit: 'c0ffee', pushed: true, branchCreated: true, fileCount: 1 });
    expect(record.git!.objects).to.deep.equal([{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' }]);
    expect(record.git!.pullRequest).to.deep.equal({ url: 'https://git.example/acme/deploy/pull/7', number: 7, existing: false });
    expect(record.request).to.have.length.below(5000);
  });

  it('never carries the token: scrubbed from the URL and from every message a remote echoes, in any spelling', () => {
    const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
    const error = new GitPublishError(`push refused for ${token} (Authorization: Basic ${basic}) ${encodeURIComponent(token)}`, 403, 'forbidden');
    const record = gitChangeRecord(context, planned, { error });
    expect(JSON.stringify(record)).to.not.contain(token).and.not.contain(basic);
    expect(record.outcome).to.deep.include({ status: 'refused', reason: 'forbidden' });
  });

  it('is applied once the commit reached the remote, the failed pull request after it said apart', () => {
    const record = gitChangeRecord(context, planned, { outcome: pushed, error: new DependencyError('github', 'the host answered 502') });
    expect(record.outcome).to.deep.equal({ status: 'applied' });
    expect(record.git!.pullRequestError).to.contain('502');
  });

  it('is failed, with no message of its own, when the delivery failed before the remote answered', () => {
    expect(gitChangeRecord(context, planned, { error: new DependencyError('git', 'could not connect') }).outcome).to.deep.equal({
      status: 'failed',
      message: 'could not connect',
    });
    expect(gitChangeRecord(context, planned, { error: new TypeError(`boom ${token}`) }).outcome).to.deep.equal({
      status: 'failed',
      message: 'the delivery failed unexpectedly',
    });
  });

  it('lists at most GIT_FILES_LISTED files, counting them all', () => {
    const files = Array.from({ length: GIT_FILES_LISTED + 5 }, (_, i) => `f${i}.yaml`);
    const record = gitChangeRecord(context, planned, { outcome: { ...pushed, files } });
    expect(record.git!.files).to.have.length(GIT_FILES_LISTED);
    expect(record.git!.fileCount).to.equal(GIT_FILES_LISTED + 5);
  });
});
