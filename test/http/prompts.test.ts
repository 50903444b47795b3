import { expect } from 'chai';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { startGitHttpServer, type GitHttpServer } from '../support/git-http-server.js';
import { PermissiveGitFetcher } from '../support/permissive-git-fetcher.js';
import { PROMPT_REPOS } from '../support/prompt-repos.js';
import { auth, buildTestApp } from '../support/test-app.js';

describe('HTTP /api/v1/prompts', function () {
  this.timeout(30000);
  let git: GitHttpServer;
  let dataDir: string;

  before(async () => {
    git = await startGitHttpServer(PROMPT_REPOS);
  });
  after(async () => git.close());
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-data-'));
    git.requests.length = 0;
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  const appWith = (env: Record<string, string> = {}, overrides = {}) =>
    buildTestApp({ SVC_DATA_DIR: dataDir, SVC_ALLOWED_REPO_HOSTS: 'localhost', SVC_REPO_INTERNAL_HOSTS: 'localhost', ...env }, overrides);
  const repoUrl = (name: string) => `${git.baseUrl}/${name}.git`;
  const names = (res: request.Response) => res.body.data.prompts.map((p: { name: string }) => p.name);
  const clones = () => readdirSync(path.join(dataDir, 'prompt-clones'));

  describe('built-in prompts', () => {
    const { app } = buildTestApp();

    it('lists at least six built-ins, each declaring arguments, source built-in', async () => {
      const res = await request(app).get('/api/v1/prompts').set(auth).expect(200);
      expect(res.body.success).to.equal(true);
      expect(res.body.data.source).to.equal('built-in');
      expect(res.body.data.prompts.length).to.be.at.least(6);
      for (const p of res.body.data.prompts) {
        expect(p).to.have.keys('name', 'description', 'arguments');
        expect(p.arguments.some((a: { required: boolean }) => a.required)).to.equal(true);
      }
      expect(names(res)).to.include.members(['debug-crashloop', 'rollout-health', 'rbac-review', 'incident-triage']);
    });

    it('renders with arguments substituted', async () => {
      const res = await request(app)
        .post('/api/v1/prompts/debug-crashloop')
        .set(auth)
        .send({ arguments: { pod: 'web-7d9f', namespace: 'shop' } })
        .expect(200);
      expect(res.body.data.source).to.equal('built-in');
      expect(res.body.data.description).to.be.a('string').and.not.empty;
      expect(res.body.data.messages).to.have.length(1);
      const [m] = res.body.data.messages;
      expect(m.role).to.equal('user');
      expect(m.content.type).to.equal('text');
      expect(m.content.text).to.contain('Pod `web-7d9f` in namespace `shop`');
      expect(m.content.text).to.not.match(/\{\{\s*(pod|namespace|container)\s*\}\}/);
    });

    it('a missing required argument is 400 naming it', async () => {
      const res = await request(app)
        .post('/api/v1/prompts/debug-crashloop')
        .set(auth)
        .send({ arguments: { pod: 'x' } })
        .expect(400);
      expect(res.body.error).to.deep.equal({ code: 'VALIDATION_ERROR', message: 'Missing required argument: namespace' });
    });

    it('an unknown prompt is 404 PROMPT_NOT_FOUND', async () => {
      const res = await request(app).post('/api/v1/prompts/no-such-prompt').set(auth).send({}).expect(404);
      expect(res.body.error.code).to.equal('PROMPT_NOT_FOUND');
    });

    it('renders a skill with its files (base64, mode)', async () => {
      const res = await request(app)
        .post('/api/v1/prompts/incident-triage')
        .set(auth)
        .send({ arguments: { namespace: 'shop', symptom: '5xx on checkout' } })
        .expect(200);
      const files = res.body.data.files as { path: string; content: string; mode: string }[];
      const script = files.find((f) => f.path === 'scripts/collect-diagnostics.sh')!;
      expect(script.mode).to.equal('0755');
      expect(Buffer.from(script.content, 'base64').toString()).to.match(/^#!\/bin\/sh/);
      expect(files.map((f) => f.path)).to.include('checklist.md');
    });

    it('refresh reloads the built-ins', async () => {
      const list = await request(app).get('/api/v1/prompts').set(auth).expect(200);
      const res = await request(app).post('/api/v1/prompts/refresh').set(auth).expect(200);
      expect(res.body.data).to.deep.equal({ refreshed: true, promptsLoaded: list.body.data.prompts.length, source: 'built-in' });
    });

    it('refuses unknown fields in the refresh body and a non-object arguments', async () => {
      await request(app).post('/api/v1/prompts/refresh').set(auth).send({ repo: 'https://github.com/a/b', token: 'x' }).expect(400);
      const res = await request(app).post('/api/v1/prompts/debug-crashloop').set(auth).send({ arguments: 'pod=x' }).expect(400);
      expect(res.body.error.code).to.equal('VALIDATION_ERROR');
    });
  });

  describe('per-request repo', () => {
    it('lists a repo: prompts and skills, malformed files and symlinks skipped with a warning', async () => {
      const { app, logger } = appWith();
      const res = await request(app)
        .get('/api/v1/prompts')
        .query({ repo: repoUrl('public') })
        .set(auth)
        .expect(200);
      expect(res.body.data.source).to.equal(repoUrl('public'));
      expect(names(res)).to.deep.equal(['rollout-check', 'triage']);
      const warned = logger.lines.filter((l) => l.level === 'warn' && l.msg === 'skipping prompt file').map((l) => l.fields.file);
      expect(warned).to.have.members(['broken.md', 'leak.md']);
    });

    it('applies path and branch; neither changes source', async () => {
      const { app } = appWith();
      const team = await request(app)
        .get('/api/v1/prompts')
        .query({ repo: repoUrl('public'), path: 'team' })
        .set(auth)
        .expect(200);
      const dev = await request(app)
        .get('/api/v1/prompts')
        .query({ repo: repoUrl('public'), branch: 'dev' })
        .set(auth)
        .expect(200);
      expect(names(team)).to.deep.equal(['team-only']);
      expect(names(dev)).to.deep.equal(['dev-only']);
      expect(team.body.data.source).to.equal(repoUrl('public'));
      expect(dev.body.data.source).to.equal(repoUrl('public'));
    });

    it("renders from a repo, with a skill's files", async () => {
      const { app } = appWith();
      const res = await request(app)
        .post('/api/v1/prompts/rollout-check')
        .query({ repo: repoUrl('public') })
        .set(auth)
        .send({ arguments: { deployment: 'api', namespace: 'prod' } })
        .expect(200);
      expect(res.body.data.messages[0].content.text).to.equal('Check the rollout of api in prod.');
      const skill = await request(app)
        .post('/api/v1/prompts/triage')
        .query({ repo: repoUrl('public') })
        .set(auth)
        .send({})
        .expect(200);
      expect(skill.body.data.files).to.deep.equal([
        { path: 'scripts/collect.sh', content: Buffer.from('#!/bin/sh\nkubectl get events\n').toString('base64'), mode: '0755' },
      ]);
    });

    it('clones a private repo with the header token', async () => {
      const { app } = appWith();
      const res = await request(app)
        .get('/api/v1/prompts')
        .query({ repo: repoUrl('private') })
        .set(auth)
        .set('X-Svc-Git-Token', git.token)
        .expect(200);
      expect(names(res)).to.deep.equal(['private-runbook']);
      expect(res.body.data.source).to.equal(repoUrl('private'));
    });

    it('private http:// repo without the header: 502 explaining the scheme, https remedy only', async () => {
      const { app } = appWith({ SVC_GIT_TOKEN: git.token });
      const res = await request(app)
        .get('/api/v1/prompts')
        .query({ repo: repoUrl('private') })
        .set(auth)
        .expect(502);
      expect(res.body.error.code).to.equal('PROMPTS_SOURCE_ERROR');
      expect(res.body.error.message).to.equal(
        `Failed to clone ${repoUrl('private')} (branch main): HTTP Error: 401 Unauthorized: Authentication required. ` +
          `The repository needs a credential and none was sent: the server's git token is only ever sent over https://, and this URL uses http://. ` +
          `Use the https:// URL of the repository.`,
      );
    });

    it("a text/plain error status is 502 with git's message, the status and the body verbatim", async () => {
      const { app } = appWith();
      const url = `${git.baseUrl}/error-text/repo.git`;
      const res = await request(app).get('/api/v1/prompts').query({ repo: url }).set(auth).expect(502);
      expect(res.body.error).to.deep.equal({
        code: 'PROMPTS_SOURCE_ERROR',
        message: `Failed to clone ${url} (branch main): HTTP Error: 503 Service Unavailable: ${git.plainErrorBody}`,
      });
    });

    it("a refused connection is 502 with git's message", async () => {
      const { app } = appWith();
      const url = `http://localhost:${git.refusedPort}/repo.git`;
      const res = await request(app).get('/api/v1/prompts').query({ repo: url }).set(auth).expect(502);
      expect(res.body.error.message).to.match(/^Failed to clone http:\/\/localhost:\d+\/repo\.git \(branch main\): connect ECONNREFUSED/);
    });

    it('a 200 that is not a repository is 200 with zero prompts (its body discarded)', async () => {
      const { app } = appWith();
      const url = `${git.baseUrl}/not-a-repo/page`;
      const res = await request(app).get('/api/v1/prompts').query({ repo: url }).set(auth).expect(200);
      expect(res.body.data).to.deep.equal({ prompts: [], source: url });
      expect(JSON.stringify(res.body)).to.not.contain('Welcome');
    });

    it('a redirect to a loopback IP literal is refused (502), nothing sent there', async () => {
      const { app } = appWith();
      const url = `${git.baseUrl}/redirect/public.git`;
      const res = await request(app).get('/api/v1/prompts').query({ repo: url }).set(auth).expect(502);
      expect(res.body.error.message).to.contain('refused to follow a redirect to 127.0.0.1: it is a loopback address');
      expect(git.requests.filter((r) => r.host.startsWith('127.0.0.1'))).to.deep.equal([]);
    });

    it('a host name resolving to loopback is refused at connect time (502, not 400) unless listed in SVC_REPO_INTERNAL_HOSTS', async () => {
      const { app } = appWith({ SVC_REPO_INTERNAL_HOSTS: '' });
      const url = repoUrl('public');
      for (const call of [
        request(app).get('/api/v1/prompts').query({ repo: url }),
        request(app).post('/api/v1/prompts/rollout-check').query({ repo: url }),
        request(app).post('/api/v1/prompts/refresh').send({ repo: url }),
      ]) {
        const res = await call.set(auth).expect(502);
        expect(res.body.error.code).to.equal('PROMPTS_SOURCE_ERROR');
        expect(res.body.error.message).to.contain('refused to connect to localhost: the name resolves to a loopback address, not a public destination');
      }
      expect(git.requests).to.deep.equal([]);
    });

    it('the configured repo is exempt from the connect-time guard', async () => {
      const { app } = appWith({ SVC_REPO_INTERNAL_HOSTS: '', SVC_USER_PROMPTS_REPO: repoUrl('public') });
      const res = await request(app).get('/api/v1/prompts').set(auth).expect(200);
      expect(names(res)).to.include('rollout-check');
    });

    it('the header token is not forwarded across a cross-host redirect', async () => {
      const { app } = appWith({}, { gitFetcher: new PermissiveGitFetcher() });
      const url = `${git.baseUrl}/redirect/private.git`;
      const res = await request(app).get('/api/v1/prompts').query({ repo: url }).set(auth).set('X-Svc-Git-Token', git.token).expect(502);
      expect(res.body.error.message).to.contain(`HTTP Error: 401 Unauthorized`);
      expect(res.body.error.message).to.contain(`not forwarded to 127.0.0.1:${git.port}`);
      const toLocalhost = git.requests.filter((r) => r.host.startsWith('localhost'));
      const toIp = git.requests.filter((r) => r.host.startsWith('127.0.0.1'));
      expect(toLocalhost.every((r) => r.authorization !== undefined)).to.equal(true);
      expect(toIp.length).to.be.greaterThan(0);
      expect(toIp.every((r) => r.authorization === undefined)).to.equal(true);
    });

    it('keeps one clone folder per slot under SVC_DATA_DIR, removing replaced ones', async () => {
      const { app } = appWith();
      for (const name of ['public', 'second', 'public', 'second']) {
        await request(app)
          .get('/api/v1/prompts')
          .query({ repo: repoUrl(name) })
          .set(auth)
          .expect(200);
      }
      expect(clones()).to.have.length(1);
      await request(app)
        .get('/api/v1/prompts')
        .query({ repo: repoUrl('private') })
        .set(auth)
        .set('X-Svc-Git-Token', git.token)
        .expect(200);
      expect(clones()).to.have.length(2);
      const infoRefs = git.requests.filter((r) => r.path.endsWith('/info/refs'));
      expect(infoRefs).to.have.length(5);
    });
  });

  describe('validation (400 before any git traffic)', () => {
    const CASES: [Record<string, string>, string][] = [
      [{ repo: 'ftp://localhost/x.git' }, 'Invalid override repoUrl scheme: ftp (only http and https are allowed) for ftp://localhost/x.git'],
      [
        { repo: 'http://127.0.0.1:1/public.git' },
        'Invalid override repoUrl host: 127.0.0.1 is a loopback address, not a public destination this server may fetch prompts from, for http://127.0.0.1:1/public.git',
      ],
      [
        { repo: 'http://[::ffff:7f00:1]:1/x' },
        'Invalid override repoUrl host: [::ffff:7f00:1] is a loopback address, not a public destination this server may fetch prompts from, for http://[::ffff:7f00:1]:1/x',
      ],
      [{ repo: 'https://github.com/a/b', path: '../../etc' }, 'Invalid override subPath: relative path cannot escape target directory'],
      [{ repo: 'https://github.com/a/b', path: '/etc' }, 'Invalid override subPath: relative path cannot be absolute'],
      [{ repo: 'https://github.com/a/b', path: 'a\0b' }, 'Invalid override subPath: contains null byte'],
      [{ repo: 'https://github.com/a/b', branch: 'main;id' }, 'Invalid override branch name: main;id'],
    ];
    for (const [query, message] of CASES) {
      it(`${JSON.stringify(query)} -> 400 on list, render and refresh, whatever the header says`, async () => {
        const { app } = appWith();
        const list = await request(app).get('/api/v1/prompts').query(query).set(auth).set('X-Svc-Git-Token', 'anything').expect(400);
        expect(list.body.error).to.deep.equal({ code: 'VALIDATION_ERROR', message });
        const render = await request(app).post('/api/v1/prompts/x').query(query).set(auth).send({}).expect(400);
        expect(render.body.error.message).to.equal(message);
        const refresh = await request(app).post('/api/v1/prompts/refresh').set(auth).send(query).expect(400);
        expect(refresh.body.error.message).to.equal(message);
        expect(git.requests).to.deep.equal([]);
      });
    }
  });

  describe('configured repo', () => {
    it('is used without repo, with SVC_USER_PROMPTS_PATH/BRANCH, and its credential is never gated', async () => {
      const { app } = appWith({ SVC_USER_PROMPTS_REPO: repoUrl('public'), SVC_USER_PROMPTS_PATH: 'team' });
      const res = await request(app).get('/api/v1/prompts').set(auth).expect(200);
      expect(res.body.data).to.deep.equal({ prompts: [{ name: 'team-only', description: 'Only in the team folder' }], source: repoUrl('public') });
      const priv = appWith({ SVC_USER_PROMPTS_REPO: repoUrl('private'), SVC_GIT_TOKEN: git.token });
      const ok = await request(priv.app).get('/api/v1/prompts').set(auth).expect(200);
      expect(ok.body.data.prompts.map((p: { name: string }) => p.name)).to.deep.equal(['private-runbook']);
    });

    it('a refresh gated by the host rules does not fail; the cached copy keeps being served', async () => {
      const { app } = appWith({ SVC_USER_PROMPTS_REPO: repoUrl('private'), SVC_GIT_TOKEN: git.token });
      await request(app).get('/api/v1/prompts').set(auth).expect(200);
      const res = await request(app)
        .post('/api/v1/prompts/refresh')
        .set(auth)
        .send({ repo: repoUrl('private') })
        .expect(200);
      expect(res.body.data).to.deep.equal({ refreshed: false, promptsLoaded: 1, source: repoUrl('private') });
      const after = await request(app).get('/api/v1/prompts').set(auth).expect(200);
      expect(after.body.data.prompts.map((p: { name: string }) => p.name)).to.deep.equal(['private-runbook']);
    });

    it('refresh takes repo, path and branch from the body', async () => {
      const { app } = appWith();
      const res = await request(app)
        .post('/api/v1/prompts/refresh')
        .set(auth)
        .send({ repo: repoUrl('public'), branch: 'dev' })
        .expect(200);
      expect(res.body.data).to.deep.equal({ refreshed: true, promptsLoaded: 1, source: repoUrl('public') });
    });

    it('refresh picks up a new commit before the TTL', async () => {
      const { app } = appWith({ SVC_USER_PROMPTS_REPO: repoUrl('second') });
      expect(names(await request(app).get('/api/v1/prompts').set(auth).expect(200))).to.deep.equal(['second-prompt']);
      git.commit('second', { 'renamed.md': '---\ndescription: after a commit\n---\nnew' });
      expect(names(await request(app).get('/api/v1/prompts').set(auth).expect(200))).to.deep.equal(['second-prompt']);
      await request(app).post('/api/v1/prompts/refresh').set(auth).expect(200);
      expect(names(await request(app).get('/api/v1/prompts').set(auth).expect(200))).to.deep.equal(['renamed']);
    });
  });
});
