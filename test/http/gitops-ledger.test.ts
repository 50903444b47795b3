import { expect } from 'chai';
import request from 'supertest';
import { GitHostApi } from '../support/git-host-api.js';
import { startGitHttpServer, type GitHttpServer } from '../support/git-http-server.js';
import { auth, buildTestApp, type TestApp } from '../support/test-app.js';
import { runWorkflow, WorkflowStandIns } from '../support/workflow-harness.js';

type Json = Record<string, any>;

/** The git token of every request here: it must never show in an entry, an answer or a log line, in any spelling. */
const CANARY = 'canary-git-token-7d41e0b9c2a8';
/** Encoded alone, and the run of characters it encodes to inside any longer base64 value, at each of the three alignments. */
const encoded = (k: number) =>
  Buffer.concat([Buffer.alloc(k), Buffer.from(CANARY)])
    .toString('base64')
    .slice(4, -4);
const SPELLINGS = [
  CANARY,
  Buffer.from(`x-access-token:${CANARY}`).toString('base64'),
  Buffer.from(CANARY).toString('base64url'),
  ...[0, 1, 2].flatMap((k) => [encoded(k), encoded(k).replace(/\+/g, '-').replace(/\//g, '_')]),
];

describe('git deliveries in the change ledger: deployManifests with gitops, over REST on the real app with the git http-backend', function () {
  this.timeout(60000);
  let s: WorkflowStandIns;
  let git: GitHttpServer;
  let github: GitHostApi;
  let t: TestApp;
  let solutionId: string;
  let deployed: Json;

  const repo = (name: string) => `${git.baseUrl}/${name}.git`;
  const deploy = (gitops: Json, token = CANARY) =>
    request(t.app).post('/api/v1/tools/deployManifests').set(auth).set('X-Svc-Git-Token', token).send({ solutionId, gitops });
  const entry = async (id: string): Promise<Json> => (await request(t.app).get(`/api/v1/changes/${id}`).set(auth).expect(200)).body.data;
  const gitEntries = async (query = ''): Promise<Json[]> =>
    (await request(t.app).get(`/api/v1/changes?kind=GitBranch&sessionId=${solutionId}${query}`).set(auth).expect(200)).body.data.changes;
  const ledgerIdIn = (message: string) => /\(change ledger entry (chg_\d+_[0-9a-f]{8})\)/.exec(message)?.[1];
  const noCanary = (...values: unknown[]) => {
    const text = JSON.stringify([values, t.logger.lines]);
    for (const secret of SPELLINGS) expect(text).to.not.include(secret);
  };

  before(async () => {
    s = await WorkflowStandIns.start();
    git = await startGitHttpServer(
      {
        gitops: { files: { 'README.md': '# cluster config\n' } },
        'team/shop': { files: { 'README.md': '# shop\n' } },
        guarded: { files: { 'README.md': '# guarded\n' }, protectedBranches: ['locked'], branches: { locked: { 'README.md': 'l\n' } } },
      },
      CANARY,
    );
    github = await new GitHostApi('github', CANARY).start();
    github.projects.add('team/shop');
    t = buildTestApp(
      { ...s.env(), SVC_ALLOWED_REPO_HOSTS: 'localhost', SVC_REPO_INTERNAL_HOSTS: 'localhost', SVC_GITHUB_API_URL: github.apiUrl },
      s.overrides(),
    );
    await s.seedOrgData(t.container);
    s.answer();
    const call = async (tool: string, params: Record<string, unknown>) => {
      const res = await request(t.app).post(`/api/v1/tools/${tool}`).set(auth).set('X-Svc-Git-Token', CANARY).send(params);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body.data.result;
    };
    const steps = await runWorkflow(call, undefined, { gitops: { repo: repo('team/shop'), pullRequest: true } });
    solutionId = steps[0].result.solutions[0].solutionId;
    deployed = steps.at(-1)!.result;
  });
  after(async () => {
    await s.close();
    await git.close();
    await github.close();
  });

  it('a push with a pull request is one entry: the branch, the commit, the files, the request, who and why; the answer names it', async () => {
    expect(deployed.ledgerIds).to.have.length(1);
    const e = await entry(deployed.ledgerIds[0]);
    const branch = `svc/${solutionId}`;
    expect(e).to.deep.include({
      type: 'change',
      tool: 'deployManifests',
      sessionId: solutionId,
      caller: { id: 'static:svc:admin', username: 'admin', roles: ['viewer', 'operator', 'admin'] },
      approval: { mode: 'manual', by: 'admin' },
      target: { apiVersion: 'git', kind: 'GitBranch', name: branch },
      before: null,
      change: { method: 'push' },
      outcome: { status: 'applied' },
      inverse: null,
    });
    expect(e.request).to.match(/^an nginx web server/);
    expect(e.dryRun).to.equal(undefined);
    expect(e.git).to.deep.equal({
      repository: repo('team/shop'),
      branch,
      baseBranch: 'main',
      commit: git.git('team/shop', ['rev-parse', branch]).trim(),
      pushed: true,
      branchCreated: true,
      files: ['web/service-web.yaml', 'web/deployment-web.yaml'],
      fileCount: 2,
      objects: [
        { apiVersion: 'v1', kind: 'Service', namespace: 'x', name: 'web' },
        { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'x', name: 'web' },
      ],
      pullRequest: { url: 'https://github.example/team/shop/pull/1', number: 1, existing: false },
    });
    expect((await gitEntries()).map((c) => c.id)).to.deep.equal([e.id]);
    expect((await request(t.app).get('/api/v1/changes/integrity').set(auth).expect(200)).body.data.ok).to.equal(true);
    noCanary(e, deployed);
  });

  it('reverting a git delivery is a clear 409 saying how to undo it in git, and the ledger is unchanged', async () => {
    const id = deployed.ledgerIds[0];
    const before = (await request(t.app).get('/api/v1/changes?limit=500').set(auth).expect(200)).body.data.changes.length;
    const res = await request(t.app).post(`/api/v1/changes/${id}/revert`).set(auth).send({}).expect(409);
    expect(res.body.error.code).to.equal('CONFLICT');
    expect(res.body.error.message).to.equal(
      `Change ${id} was delivered through git, not written to a cluster: revert it in git: close pull request #1 (https://github.example/team/shop/pull/1) if it is not merged, or revert commit ${deployed.gitops.commit} in ${repo('team/shop')} if it is`,
    );
    expect((await request(t.app).get('/api/v1/changes?limit=500').set(auth).expect(200)).body.data.changes).to.have.length(before);
    expect(s.kube.requests.filter((r) => r.method !== 'GET' && r.query.get('dryRun') !== 'All')).to.deep.equal([]);
  });

  it('a non-fast-forward refusal is a 502 naming the repository and the reason, recorded as refused, the token nowhere', async () => {
    await deploy({ repo: repo('gitops'), branch: 'svc/race' }).expect(200);
    git.beforeNextPush('gitops', () => git.resetBranch('gitops', 'svc/race', { 'other.txt': 'someone else\n' }));
    const res = await deploy({ repo: repo('gitops'), branch: 'svc/race', path: 'moved' }).expect(502);
    expect(res.body.error.code).to.equal('DEPENDENCY_ERROR');
    expect(res.body.error.message)
      .to.include(`Push to ${repo('gitops')} (branch svc/race) failed`)
      .and.include('non-fast-forward')
      .and.include('svc never force-pushes');
    expect(git.show('gitops', 'svc/race', 'other.txt')).to.equal('someone else\n');
    const e = await entry(ledgerIdIn(res.body.error.message)!);
    expect(e.outcome).to.deep.include({ status: 'refused', reason: 'non-fast-forward' });
    expect(e.outcome.message).to.include('non-fast-forward');
    expect(e.git).to.deep.include({ repository: repo('gitops'), branch: 'svc/race', files: [], fileCount: 0 });
    expect(e.git.commit).to.equal(undefined);
    const revert = await request(t.app).post(`/api/v1/changes/${e.id}/revert`).set(auth).send({}).expect(409);
    expect(revert.body.error.message).to.include('nothing reached branch svc/race').and.include('(refused)');
    noCanary(res.body, e, revert.body);
  });

  it('a protected branch and a read-only token are recorded as refused (rejected, forbidden); outcome and kind filters find them', async () => {
    const hooked = await deploy({ repo: repo('guarded'), branch: 'locked' }).expect(502);
    expect(hooked.body.error.message).to.include('Protected branch update failed');
    const readOnly = await deploy({ repo: repo('gitops'), branch: 'svc/ro' }, git.readOnlyToken).expect(502);
    expect(readOnly.body.error.message).to.include('403');
    const [ro, locked] = await gitEntries('&outcome=refused&limit=2');
    expect(locked.id).to.equal(ledgerIdIn(hooked.body.error.message));
    expect(locked.outcome).to.deep.include({ status: 'refused', reason: 'rejected' });
    expect(locked.target).to.deep.equal({ apiVersion: 'git', kind: 'GitBranch', name: 'locked' });
    expect(ro.id).to.equal(ledgerIdIn(readOnly.body.error.message));
    expect(ro.outcome).to.deep.include({ status: 'refused', reason: 'forbidden' });
    expect(JSON.stringify([ro, readOnly.body])).to.not.include(git.readOnlyToken);
    noCanary(hooked.body, locked);
  });

  it('a push whose pull request the host refuses is recorded as applied, with the host answer; the 502 names the entry', async () => {
    github.failWith = { status: 500, body: { message: 'GitHub is down for maintenance' } };
    try {
      const res = await deploy({ repo: repo('team/shop'), branch: 'svc/pr-fails', pullRequest: true }).expect(502);
      const e = await entry(ledgerIdIn(res.body.error.message)!);
      expect(e.outcome).to.deep.equal({ status: 'applied' });
      expect(e.git).to.deep.include({ branch: 'svc/pr-fails', pushed: true, commit: git.git('team/shop', ['rev-parse', 'svc/pr-fails']).trim() });
      expect(e.git.pullRequestError).to.include('500');
      noCanary(res.body, e);
    } finally {
      github.failWith = undefined;
    }
  });

  it('a pull-request error echoing the git token encoded (base64, base64url, inside a base64 blob) reaches neither the answer, the log nor the ledger', async () => {
    const blob = Buffer.from(`{"auth":"x-access-token:${CANARY}","at":1}`).toString('base64');
    const echoes = `${Buffer.from(CANARY).toString('base64')} ${Buffer.from(CANARY).toString('base64url')} ${blob}`;
    github.failWith = { status: 500, body: { message: `could not use the credential ${echoes}` } };
    try {
      const res = await deploy({ repo: repo('team/shop'), branch: 'svc/pr-echo', pullRequest: true }).expect(502);
      expect(res.body.error.message).to.include('could not use the credential ***');
      const e = await entry(ledgerIdIn(res.body.error.message)!);
      expect(e.git.pullRequestError).to.include('500').and.include('***');
      noCanary(res.body, e);
    } finally {
      github.failWith = undefined;
    }
  });

  it('nothing new to push is recorded too (pushed false, the same commit)', async () => {
    const res = await deploy({ repo: repo('gitops'), branch: 'svc/race', path: 'again' }).expect(200);
    const again = await deploy({ repo: repo('gitops'), branch: 'svc/race', path: 'again' }).expect(200);
    expect(again.body.data.result.status).to.equal('unchanged');
    const e = await entry(again.body.data.result.ledgerIds[0]);
    expect(e.git).to.deep.include({ pushed: false, commit: res.body.data.result.gitops.commit });
  });
});
