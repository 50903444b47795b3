import { expect } from 'chai';
import request from 'supertest';
import { GitHostApi } from '../support/git-host-api.js';
import { startGitHttpServer, type GitHttpServer } from '../support/git-http-server.js';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { ALL_YAML, argoApplication, fluxKustomization, serveGitopsKinds } from '../../lab/sandbox/kube/kube-gitops.js';
import { OpenAiChatServer } from '../support/openai-chat-server.js';
import { planJson, scaleWeb } from '../support/operate-fixtures.js';
import { analysisAnswer, callFn, verifiedAnswer, webDeployment } from '../support/remediation-fixtures.js';
import { auth, buildTestApp } from '../support/test-app.js';

type Any = any;

describe('remediate and operate on objects Argo CD or Flux manage (real app, Kubernetes stand-in with their CRDs, git http-backend)', function () {
  this.timeout(60000);
  let kube: KubeApiServer;
  let chat: OpenAiChatServer;
  let git: GitHttpServer;
  let github: GitHostApi;
  let restore: () => void;
  let env: Record<string, string>;
  const repoURL = () => `${git.baseUrl}/team/config.git`;

  before(async () => {
    restore = serveGitopsKinds();
    git = await startGitHttpServer({
      'team/config': {
        files: {
          'README.md': '# config\n',
          'apps/web/all.yaml': ALL_YAML,
          'apps/other.yaml': 'kind: ConfigMap\n',
          // Flux's path: a decoy of the same kind and name in another namespace sorts first
          'clusters/prod/decoy.yaml': ALL_YAML.replace(/namespace: x/g, 'namespace: y'),
          'clusters/prod/web.yaml': ALL_YAML,
        },
      },
    });
    github = await new GitHostApi('github', git.token).start();
    github.projects.add('team/config');
  });
  after(async () => {
    restore();
    await git.close();
    await github.close();
  });
  beforeEach(async () => {
    git.requests.length = 0;
    kube = await KubeApiServer.start();
    chat = await OpenAiChatServer.start();
    env = {
      OPENAI_API_KEY: chat.apiKey,
      OPENAI_BASE_URL: chat.baseUrl,
      SVC_LLM_MODEL: 'gpt-test',
      SVC_LLM_MAX_RETRIES: '0',
      KUBECONFIG: kube.writeKubeconfig(),
      SVC_ALLOWED_REPO_HOSTS: 'localhost',
      SVC_REPO_INTERNAL_HOSTS: 'localhost',
      SVC_GITHUB_API_URL: github.apiUrl,
    };
  });
  afterEach(async () => {
    await kube.close();
    await chat.close();
  });

  const post = (app: Any, body: object, token = git.token) => request(app).post('/api/v1/tools/remediate').set(auth).set('X-Svc-Git-Token', token).send(body);
  const liveWrites = () => kube.requests.filter((r) => r.method !== 'GET' && r.query.get('dryRun') !== 'All');
  const liveImage = () => kube.objects.get(kube.pathOf('apps/v1', 'Deployment', 'web', 'x'))!.spec.template.spec.containers[0].image;
  const investigate = () =>
    chat.script(
      callFn('list_resources', { apiVersion: 'v1', kind: 'Pod', namespace: 'x' }),
      { content: 'The tag does not exist.' },
      { content: analysisAnswer() },
    );

  /** web in x labelled by the Flux Kustomization flux-system/apps over `path` of the repository, its investigation scripted: the app. */
  const fluxManagedWeb = (path: string) => {
    const web = webDeployment('nginx:9.9-missing');
    web.metadata.labels = { ...web.metadata.labels, 'kustomize.toolkit.fluxcd.io/name': 'apps', 'kustomize.toolkit.fluxcd.io/namespace': 'flux-system' };
    kube.create(web);
    for (const o of fluxKustomization(repoURL(), path)) kube.put(o);
    investigate();
    return buildTestApp(env).app;
  };

  it('Argo CD: the proposal is marked, execution needs a delivery, and delivery "git" commits the fix to the multi-document file with its comments', async () => {
    const web = webDeployment('nginx:9.9-missing');
    web.metadata.labels = { ...web.metadata.labels, 'app.kubernetes.io/instance': 'web-app' };
    web.metadata.annotations = { 'argocd.argoproj.io/tracking-id': 'web-app:apps/Deployment:x/web' };
    kube.create(web);
    kube.put(argoApplication('web-app', repoURL(), 'apps/web'));
    investigate();
    const { app } = buildTestApp(env);
    const view = (await post(app, { issue: 'web in namespace x never becomes ready' }).expect(200)).body.data.result;
    expect(view.status).to.equal('awaiting_approval');
    expect(view.actions[0].gitops).to.deep.equal({
      controller: 'argocd',
      owner: 'Application argocd/web-app',
      source: { repoURL: repoURL(), path: 'apps/web', revision: 'main' },
    });
    expect(view.warning).to.include('Deployment x/web (Argo CD, Application argocd/web-app)').and.include('will be reverted by the controller');
    expect(view.nextStep).to.include('"delivery":"git"');

    const bare = await post(app, { sessionId: view.sessionId, executeChoice: 1 }).expect(400);
    expect(bare.body.error.message).to.include('A live change will be reverted').and.include('"delivery": "git" or "live"');

    const done = (await post(app, { sessionId: view.sessionId, executeChoice: 1, delivery: 'git' }).expect(200)).body.data.result;
    expect(done.status, JSON.stringify(done)).to.equal('delivered_to_git');
    const branch = `svc/${view.sessionId}`;
    expect(done.gitDelivery).to.deep.include({ repository: repoURL(), branch, baseBranch: 'main', changed: true, files: ['apps/web/all.yaml'] });
    expect(done.gitDelivery.pullRequest).to.deep.equal({ url: 'https://github.example/team/config/pull/1', number: 1, existing: false });
    expect(done.message).to.include('Nothing was changed in the cluster');
    const pushed = git.show('team/config', branch, 'apps/web/all.yaml')!;
    expect(pushed).to.include('image: nginx:1.27').and.not.include('9.9-missing');
    // comments, the other document and the layout kept
    expect(pushed)
      .to.include('# web: the shop front end')
      .and.include('- port: 80 # http')
      .and.include('# the Deployment (images are pinned by the platform team)');
    expect(pushed).to.include('replicas: 1 # one is enough for now');
    expect(pushed.split('\n---\n')[0]).to.equal(ALL_YAML.split('\n---\n')[0]);
    // the live object untouched: only dry runs reached the API server (the proposal's preview, then the delivery's)
    expect(liveWrites()).to.deep.equal([]);
    expect(kube.requests.filter((r) => r.method === 'PATCH' && r.query.get('dryRun') === 'All')).to.have.length(2);
    expect(liveImage()).to.equal('nginx:9.9-missing');
    expect(github.requests[0].body).to.deep.include({ head: branch, base: 'main' });
    expect(JSON.stringify([done, github.requests.map((r) => r.body)])).to.not.include(git.token);
  });

  it('Flux: automatic mode never live-patches; manual mode does after delivery "live", warning again', async () => {
    const app = fluxManagedWeb('apps/web');
    const auto = (await post(app, { issue: 'web never becomes ready', mode: 'automatic', maxRiskLevel: 'high', confidenceThreshold: 0.1 }).expect(200)).body
      .data.result;
    expect(auto.status).to.equal('awaiting_approval');
    expect(auto.automaticExecution).to.deep.equal({
      executed: false,
      reason: 'automatic mode never changes a GitOps-managed object live (Deployment x/web (Flux, Kustomization flux-system/apps))',
    });
    expect(auto.actions[0].gitops).to.deep.equal({
      controller: 'flux',
      owner: 'Kustomization flux-system/apps',
      source: { repoURL: repoURL(), path: 'apps/web', revision: 'main' },
    });
    expect(liveWrites()).to.deep.equal([]);

    chat.script({ content: verifiedAnswer() });
    const live = (await post(app, { sessionId: auto.sessionId, executeChoice: 1, delivery: 'live' }).expect(200)).body.data.result;
    expect(live.status).to.equal('executed');
    expect(live.warning).to.match(/^Changed live although managed by GitOps: the controller will revert it/);
    expect(liveImage()).to.equal('nginx:1.27');
  });

  it('Flux: delivery "git" finds the object in the Kustomization\'s GitRepository path, pushes the patched multi-document file with its comments, live untouched, recorded', async () => {
    const app = fluxManagedWeb('clusters/prod');
    const view = (await post(app, { issue: 'web in namespace x never becomes ready' }).expect(200)).body.data.result;
    expect(view.actions[0].gitops).to.deep.equal({
      controller: 'flux',
      owner: 'Kustomization flux-system/apps',
      source: { repoURL: repoURL(), path: 'clusters/prod', revision: 'main' },
    });
    const done = (await post(app, { sessionId: view.sessionId, executeChoice: 1, delivery: 'git' }).expect(200)).body.data.result;
    expect(done.status, JSON.stringify(done)).to.equal('delivered_to_git');
    const branch = `svc/${view.sessionId}`;
    expect(done.gitDelivery).to.deep.include({ repository: repoURL(), branch, baseBranch: 'main', changed: true, files: ['clusters/prod/web.yaml'] });
    // read back with git from the server: the fix in the right document, every comment and the other document kept
    const pushed = git.show('team/config', branch, 'clusters/prod/web.yaml')!;
    expect(pushed).to.equal(ALL_YAML.replace('image: nginx:9.9-missing', 'image: nginx:1.27'));
    expect(git.show('team/config', branch, 'clusters/prod/decoy.yaml')).to.include('image: nginx:9.9-missing');
    expect(git.git('team/config', ['diff', '--name-only', 'main', branch]).trim()).to.equal('clusters/prod/web.yaml');
    expect(liveWrites()).to.deep.equal([]);
    expect(liveImage()).to.equal('nginx:9.9-missing');
    const entry = (await request(app).get(`/api/v1/changes/${done.gitDelivery.ledgerId}`).set(auth).expect(200)).body.data;
    expect(entry).to.deep.include({
      tool: 'remediate',
      sessionId: view.sessionId,
      request: 'web in namespace x never becomes ready',
      outcome: { status: 'applied' },
    });
    expect(entry.approval).to.deep.equal({ mode: 'manual', by: 'admin' });
    expect(entry.dryRun).to.deep.include({ accepted: true });
    expect(entry.git).to.deep.include({ repository: repoURL(), branch, commit: done.gitDelivery.commit, pushed: true, files: ['clusters/prod/web.yaml'] });
    expect(entry.git.objects).to.deep.equal([{ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'x', name: 'web' }]);
    expect(entry.git.pullRequest).to.deep.equal({ ...done.gitDelivery.pullRequest });
    expect(JSON.stringify([done, entry])).to.not.include(git.token);
  });

  it('refuses git delivery for an object no controller manages, and without a credential for the source', async () => {
    kube.create(webDeployment('nginx:9.9-missing'));
    investigate();
    const { app } = buildTestApp(env);
    const view = (await post(app, { issue: 'web never becomes ready' }).expect(200)).body.data.result;
    expect(view.actions[0].gitops).to.equal(undefined);
    expect(view.warning).to.equal(undefined);
    const res = await post(app, { sessionId: view.sessionId, executeChoice: 1, delivery: 'git' }).expect(400);
    expect(res.body.error.message).to.include('is not managed by a GitOps controller');

    const managed = webDeployment('nginx:9.9-missing');
    managed.metadata.name = 'web2';
    kube.create({ ...managed, metadata: { ...managed.metadata, annotations: { 'argocd.argoproj.io/tracking-id': 'web2:apps/Deployment:x/web2' } } });
    kube.put(argoApplication('web2', 'https://git.example.invalid/team/config.git', 'apps/web'));
    chat.script(
      { content: 'The tag does not exist.' },
      {
        content: analysisAnswer({
          actions: [{ ...JSON.parse(analysisAnswer()).actions[0], target: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web2', namespace: 'x' } }],
        }),
      },
    );
    const other = (await post(app, { issue: 'web2 never becomes ready' }).expect(200)).body.data.result;
    // the proposal already says a commit is not possible, and offers only the live change
    expect(other.actions[0].gitops.noGitDelivery).to.include("the source repository's host git.example.invalid is not in the allowed repository hosts");
    expect(other.warning).to.include('svc cannot commit this change to git (').and.include('it can only be made live (delivery "live")');
    expect(other.nextStep).to.include('"delivery":"live"').and.not.include('"delivery":"git"');
    const refused = await post(app, { sessionId: other.sessionId, executeChoice: 1, delivery: 'git' }).expect(400);
    expect(refused.body.error.message).to.include('git.example.invalid is not in the allowed repository hosts');
    expect(git.requests).to.deep.equal([]);
  });

  it('operate: a scale of an Argo CD-managed Deployment is marked, and delivered as a commit to replicas in the source file', async () => {
    const web = webDeployment('nginx:1.27');
    web.metadata.annotations = { 'argocd.argoproj.io/tracking-id': 'web-app:apps/Deployment:x/web' };
    kube.create(web);
    kube.put(argoApplication('web-app', repoURL(), 'apps/web'));
    chat.script(
      callFn('get_resource', { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'x', name: 'web' }),
      { content: 'scale it' },
      { content: planJson([scaleWeb(3)]) },
    );
    const { app } = buildTestApp(env);
    const operate = (body: object) => request(app).post('/api/v1/tools/operate').set(auth).set('X-Svc-Git-Token', git.token).send(body);
    const view = (await operate({ intent: 'scale web in x to 3 replicas' }).expect(200)).body.data.result;
    expect(view.status).to.equal('awaiting_approval');
    expect(view.proposal.actions[0].gitops).to.deep.include({ controller: 'argocd', owner: 'Application argocd/web-app' });
    expect(view.proposal.warning).to.include('will be reverted');
    expect((await operate({ sessionId: view.sessionId, executeChoice: 1 }).expect(400)).body.error.message).to.include('"delivery": "git" or "live"');
    const done = (await operate({ sessionId: view.sessionId, executeChoice: 1, delivery: 'git' }).expect(200)).body.data.result;
    expect(done.status, JSON.stringify(done)).to.equal('delivered_to_git');
    expect(done.execution.outcome.gitDelivery).to.deep.include({ branch: `svc/${view.sessionId}`, files: ['apps/web/all.yaml'] });
    const entry = (await request(app).get(`/api/v1/changes/${done.execution.outcome.gitDelivery.ledgerId}`).set(auth).expect(200)).body.data;
    expect(entry).to.deep.include({
      tool: 'operate',
      sessionId: view.sessionId,
      target: { apiVersion: 'git', kind: 'GitBranch', name: `svc/${view.sessionId}` },
    });
    expect(done.nextStep).to.include('Nothing was changed in the cluster: review and merge https://github.example/team/config/pull/');
    const pushed = git.show('team/config', `svc/${view.sessionId}`, 'apps/web/all.yaml')!;
    expect(pushed).to.include('replicas: 3 # one is enough for now').and.include('image: nginx:9.9-missing');
    expect(liveWrites()).to.deep.equal([]);
    expect(kube.objects.get(kube.pathOf('apps/v1', 'Deployment', 'web', 'x'))!.spec.replicas).to.equal(1);
  });
});
