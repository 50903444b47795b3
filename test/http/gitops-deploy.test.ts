import { expect } from 'chai';
import request from 'supertest';
import { GitHostApi } from '../support/git-host-api.js';
import { RecordingTracer } from '../support/recording-tracer.js';
import { startGitHttpServer, type GitHttpServer } from '../support/git-http-server.js';
import { auth, buildTestApp, type TestApp } from '../support/test-app.js';
import { runWorkflow, WorkflowStandIns, type WorkflowStep } from '../support/workflow-harness.js';

type Json = Record<string, any>;

describe('deployManifests with gitops: the workflow ends in a push and a pull request, over REST on the real app', function () {
  this.timeout(60000);
  let s: WorkflowStandIns;
  let git: GitHttpServer;
  let github: GitHostApi;
  let gitlab: GitHostApi;
  let t: TestApp;
  let steps: WorkflowStep[];
  let solutionId: string;

  const repo = (name: string) => `${git.baseUrl}/${name}.git`;
  const deploy = (gitops: Json, headers: Record<string, string> = { 'X-Svc-Git-Token': git.token }, app = t.app) =>
    request(app)
      .post('/api/v1/tools/deployManifests')
      .set({ ...auth, ...headers })
      .send({ solutionId, gitops });
  const pushes = () => git.requests.filter((r) => r.path.endsWith('git-receive-pack'));

  before(async () => {
    s = await WorkflowStandIns.start();
    git = await startGitHttpServer({
      gitops: { files: { 'README.md': '# cluster config\n' } },
      'team/shop': { files: { 'README.md': '# shop\n' } },
      'group/shop': { files: { 'README.md': '# shop\n' }, protectedBranches: ['main', 'release'], branches: { release: { 'README.md': 'r\n' } } },
    });
    github = await new GitHostApi('github', git.token).start();
    github.projects.add('team/shop');
    gitlab = await new GitHostApi('gitlab', git.token).start();
    gitlab.projects.add('group/shop');
    t = buildTestApp(
      {
        ...s.env(),
        SVC_ALLOWED_REPO_HOSTS: 'localhost',
        SVC_REPO_INTERNAL_HOSTS: 'localhost',
        SVC_GITHUB_API_URL: github.apiUrl,
        SVC_GIT_AUTHOR: 'Platform Bot <bot@shop.example>',
      },
      s.overrides(),
    );
    await s.seedOrgData(t.container);
    s.answer();
    const call = async (tool: string, params: Record<string, unknown>) => {
      const res = await request(t.app).post(`/api/v1/tools/${tool}`).set(auth).set('X-Svc-Git-Token', git.token).send(params);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body.data.result;
    };
    steps = await runWorkflow(call, undefined, { gitops: { repo: repo('gitops') } });
    solutionId = steps[0].result.solutions[0].solutionId;
  });
  after(async () => {
    await s.close();
    await git.close();
    await github.close();
    await gitlab.close();
  });
  beforeEach(() => {
    git.requests.length = 0;
  });

  it('pushes one YAML file per object to svc/<solutionId>, read back with git; the cluster is untouched', async () => {
    const dep = steps.at(-1)!.result;
    expect(dep).to.deep.include({ solutionId, status: 'pushed', delivery: 'git', nextSteps: [] });
    expect(dep.gitops).to.deep.include({ repository: repo('gitops'), branch: `svc/${solutionId}`, baseBranch: 'main', branchCreated: true });
    expect(dep.gitops.files).to.deep.equal(['web/service-web.yaml', 'web/deployment-web.yaml']);
    expect(dep.gitops.commit).to.equal(git.git('gitops', ['rev-parse', `svc/${solutionId}`]).trim());
    expect(dep.nextStep).to.include(`Open a pull request from svc/${solutionId} into main`);
    const yaml = git.show('gitops', `svc/${solutionId}`, 'web/deployment-web.yaml')!;
    expect(yaml).to.include('kind: Deployment').and.include('namespace: x').and.include(`svc.dev/solution-id: ${solutionId}`);
    expect(git.show('gitops', `svc/${solutionId}`, 'web/service-web.yaml')).to.include('kind: Service');
    const log = git.git('gitops', ['log', '-1', '--format=%an <%ae>%n%B', `svc/${solutionId}`]);
    expect(log).to.include('Platform Bot <bot@shop.example>').and.include(`Solution: ${solutionId}`).and.include('svc: an nginx web server');
    expect(git.show('gitops', 'main', 'web/deployment-web.yaml')).to.equal(undefined);
    expect(s.kube.objects.has('/apis/apps/v1/namespaces/x/deployments/web')).to.equal(false);
    expect(s.kube.requests.filter((r) => r.method !== 'GET' && r.query.get('dryRun') !== 'All')).to.deep.equal([]);
  });

  it('path, branch and commitMessage as asked; again with the same files pushes nothing', async () => {
    const gitops = { repo: repo('gitops'), path: 'apps/./shop/', branch: 'feature/shop', commitMessage: 'Add the shop front end' };
    const first = await deploy(gitops).expect(200);
    expect(first.body.data.result.gitops.files).to.deep.equal(['apps/shop/service-web.yaml', 'apps/shop/deployment-web.yaml']);
    expect(git.git('gitops', ['log', '-1', '--format=%s', 'feature/shop']).trim()).to.equal('Add the shop front end');
    const again = await deploy(gitops).expect(200);
    expect(again.body.data.result).to.deep.include({ status: 'unchanged' });
    expect(again.body.data.result.gitops.commit).to.equal(first.body.data.result.gitops.commit);
  });

  it('opens a GitHub pull request naming the intent, solution, caller and answers; a second delivery answers the open one', async () => {
    const res = await deploy({ repo: repo('team/shop'), pullRequest: true }).expect(200);
    const out = res.body.data.result;
    expect(out.gitops.pullRequest).to.deep.equal({ url: 'https://github.example/team/shop/pull/1', number: 1, existing: false });
    expect(out.nextStep).to.include('Review and merge https://github.example/team/shop/pull/1 into main');
    const [pr] = github.requests;
    expect(pr.method).to.equal('POST');
    expect(pr.path).to.equal('/api/v3/repos/team/shop/pulls');
    expect(pr.headers.authorization).to.equal(`Bearer ${git.token}`);
    expect(pr.body).to.deep.include({ head: `svc/${solutionId}`, base: 'main' });
    expect(pr.body!.title).to.match(/^svc: an nginx web server/);
    expect(pr.body!.body)
      .to.include(solutionId)
      .and.include(res.headers['x-request-id'])
      .and.include('**Requested by:** `admin` through svc')
      .and.include('`deployment-replicas`: `2`')
      .and.include('web/deployment-web.yaml');
    const again = await deploy({ repo: repo('team/shop'), pullRequest: true }).expect(200);
    expect(again.body.data.result.status).to.equal('unchanged');
    expect(again.body.data.result.gitops.pullRequest).to.deep.equal({ url: 'https://github.example/team/shop/pull/1', number: 1, existing: true });
    expect(github.open).to.have.length(1);
  });

  it('opens a GitLab merge request (SVC_GITOPS_PROVIDER, SVC_GITLAB_API_URL) from a named base branch', async () => {
    const app = buildTestApp(
      {
        ...s.env(),
        SVC_ALLOWED_REPO_HOSTS: 'localhost',
        SVC_REPO_INTERNAL_HOSTS: 'localhost',
        SVC_GITOPS_PROVIDER: 'gitlab',
        SVC_GITLAB_API_URL: gitlab.apiUrl,
      },
      s.overrides(),
    ).app;
    const res = await deploy({ repo: repo('group/shop'), baseBranch: 'release', branch: 'svc/shop', pullRequest: true }, undefined, app).expect(200);
    expect(res.body.data.result.gitops.pullRequest).to.deep.equal({ url: 'https://gitlab.example/group/shop/-/merge_requests/1', number: 1, existing: false });
    const [mr] = gitlab.requests;
    expect(mr.path).to.equal('/api/v4/projects/group%2Fshop/merge_requests');
    expect(mr.headers['private-token']).to.equal(git.token);
    expect(mr.body).to.deep.include({ source_branch: 'svc/shop', target_branch: 'release' });
    expect(git.git('group/shop', ['rev-parse', 'svc/shop~1']).trim()).to.equal(git.git('group/shop', ['rev-parse', 'release']).trim());
  });

  it('traces the delivery: a git push span with vcs.* attributes and the pull request call as a client span, no token in any span', async () => {
    const tracer = new RecordingTracer();
    const app = buildTestApp(
      { ...s.env(), SVC_ALLOWED_REPO_HOSTS: 'localhost', SVC_REPO_INTERNAL_HOSTS: 'localhost', SVC_GITHUB_API_URL: github.apiUrl },
      { ...s.overrides(), tracer },
    ).app;
    await deploy({ repo: repo('team/shop'), branch: 'svc/traced', pullRequest: true }, undefined, app).expect(200);
    const push = tracer.spans.find((x) => x.name === 'git push')!;
    expect(push.parent?.name).to.equal('execute_tool deployManifests');
    expect(push.attributes).to.deep.include({
      'vcs.repository.url.full': repo('team/shop'),
      'vcs.ref.head.name': 'svc/traced',
      'vcs.ref.head.type': 'branch',
      'vcs.ref.base.name': 'main',
      'vcs.ref.head.revision': git.git('team/shop', ['rev-parse', 'svc/traced']).trim(),
      'server.address': 'localhost',
      'svc.git.changed': true,
    });
    const pr = tracer.spans.find((x) => x.name === 'POST /repos/{owner}/{repo}/pulls')!;
    expect(pr.attributes).to.deep.include({
      'vcs.provider.name': 'github',
      'vcs.repository.name': 'team/shop',
      'vcs.ref.head.name': 'svc/traced',
      'vcs.change.id': '2',
    });
    expect(JSON.stringify(tracer.spans.map((x) => [x.name, x.attributes]))).to.not.include(git.token);
  });

  describe('refusals', () => {
    it('no credential: 400 before any I/O, naming the header and SVC_GIT_TOKEN', async () => {
      const res = await deploy({ repo: repo('gitops') }, {}).expect(400);
      expect(res.body.error.code).to.equal('VALIDATION_ERROR');
      expect(res.body.error.message).to.include('X-Svc-Git-Token').and.include('SVC_GIT_TOKEN');
      expect(git.requests).to.deep.equal([]);
    });

    it('the server token is not used for a host outside SVC_ALLOWED_REPO_HOSTS, nor over http: 400 before any I/O', async () => {
      const app = buildTestApp({ ...s.env(), SVC_GIT_TOKEN: 'server-canary-token-0123456789', SVC_ALLOWED_REPO_HOSTS: 'github.com' }, s.overrides()).app;
      const other = await deploy({ repo: 'https://git.example.invalid/team/shop.git' }, {}, app).expect(400);
      expect(other.body.error.message).to.include('git.example.invalid is not in the allowed repository hosts').and.include('SVC_ALLOWED_REPO_HOSTS');
      const plain = await deploy({ repo: repo('gitops') }, {}, app).expect(400);
      expect(plain.body.error.message).to.include('only ever sent over https://');
      expect(JSON.stringify([other.body, plain.body])).to.not.include('server-canary-token');
      expect(git.requests).to.deep.equal([]);
    });

    it('repository rules of prompt repos: a private IP literal is 400, a name resolving to loopback 502 at connect time', async () => {
      const literal = await deploy({ repo: `http://10.0.0.7/x.git` }).expect(400);
      expect(literal.body.error.message).to.equal(
        'Invalid override repoUrl host: 10.0.0.7 is a private address, not a public destination this server may fetch prompts from, for http://10.0.0.7/x.git',
      );
      const path = await deploy({ repo: repo('gitops'), path: '../up' }).expect(400);
      expect(path.body.error.message).to.equal('Invalid override subPath: relative path cannot escape target directory');
      const branch = await deploy({ repo: repo('gitops'), branch: 'a..b' }).expect(400);
      expect(branch.body.error.message).to.include('Invalid gitops branch: a..b');
      const base = await deploy({ repo: repo('gitops'), branch: 'main', baseBranch: 'main' }).expect(400);
      expect(base.body.error.message).to.include('svc never pushes to the base branch');
      const app = buildTestApp({ ...s.env(), SVC_ALLOWED_REPO_HOSTS: 'localhost' }, s.overrides()).app;
      const resolved = await deploy({ repo: repo('gitops') }, undefined, app).expect(502);
      expect(resolved.body.error.code).to.equal('DEPENDENCY_ERROR');
      expect(resolved.body.error.message).to.include('refused to connect to localhost').and.include('SVC_REPO_INTERNAL_HOSTS');
      expect(git.requests).to.deep.equal([]);
    });

    it('the default branch is never pushed to, even when named as the branch', async () => {
      const res = await deploy({ repo: repo('gitops'), branch: 'main' }).expect(400);
      expect(res.body.error.message).to.include('svc never pushes to the base branch');
      expect(pushes().filter((r) => r.method === 'POST')).to.deep.equal([]);
    });

    it('a protected branch (pre-receive hook) and a read-only token are 502 naming the repository and why, no token anywhere', async () => {
      const hooked = await deploy({ repo: repo('group/shop'), branch: 'release', baseBranch: 'main' }).expect(502);
      expect(hooked.body.error.message)
        .to.include(`Push to ${repo('group/shop')} (branch release) failed`)
        .and.include('Protected branch update failed');
      const readOnly = await deploy({ repo: repo('gitops'), branch: 'svc/ro' }, { 'X-Svc-Git-Token': git.readOnlyToken }).expect(502);
      expect(readOnly.body.error.message).to.include('403').and.include('read access only');
      const everything = JSON.stringify([hooked.body, readOnly.body, t.logger.lines]);
      expect(everything).to.not.include(git.readOnlyToken).and.not.include(git.token);
    });
  });
});
