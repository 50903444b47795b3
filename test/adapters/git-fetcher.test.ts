import { expect } from 'chai';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GitFetchError, type CloneRequest } from '../../domain/ports/git-fetcher.js';
import { IsomorphicGitFetcher } from '../../infrastructure/git/isomorphic-git-fetcher.js';
import { startGitHttpServer, type GitHttpServer } from '../support/git-http-server.js';
import { PROMPT_REPOS } from '../support/prompt-repos.js';

describe('IsomorphicGitFetcher against git http-backend', function () {
  this.timeout(30000);
  let server: GitHttpServer;
  let work: string;
  let n = 0;
  // the server is reached as `localhost`: listed internal, as SVC_REPO_INTERNAL_HOSTS would
  const fetcher = new IsomorphicGitFetcher({ internalHosts: ['localhost'] });

  before(async () => {
    server = await startGitHttpServer(PROMPT_REPOS);
  });
  after(async () => server.close());
  beforeEach(() => {
    work = mkdtempSync(path.join(tmpdir(), 'svc-clone-'));
    server.requests.length = 0;
  });
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  function request(url: string, extra: Partial<CloneRequest> = {}): CloneRequest {
    return { url, displayUrl: url, branch: 'main', dir: path.join(work, `c${++n}`), timeoutMs: 10000, refuseNonPublicRedirects: false, ...extra };
  }

  async function failure(req: CloneRequest, f = fetcher): Promise<GitFetchError> {
    try {
      await f.clone(req);
    } catch (e) {
      expect(e).to.be.instanceOf(GitFetchError);
      return e as GitFetchError;
    }
    throw new Error('clone should have failed');
  }

  it('clones one branch at depth 1', async () => {
    const req = request(`${server.baseUrl}/public.git`);
    expect(await fetcher.clone(req)).to.equal('cloned');
    expect(readFileSync(path.join(req.dir, 'rollout-check.md'), 'utf8')).to.contain('{{deployment}}');
    expect(statSync(path.join(req.dir, 'skills/triage/scripts/collect.sh')).mode & 0o777).to.equal(0o755);
    expect(existsSync(path.join(req.dir, 'dev-only.md'))).to.equal(false);
    expect(readFileSync(path.join(req.dir, '.git/shallow'), 'utf8').trim()).to.match(/^[0-9a-f]{40}$/);
    const heads = readdirSync(path.join(req.dir, '.git/refs/remotes/origin'));
    expect(heads).to.not.include('dev');
  });

  it('clones the requested branch', async () => {
    const req = request(`${server.baseUrl}/public.git`, { branch: 'dev' });
    await fetcher.clone(req);
    expect(existsSync(path.join(req.dir, 'dev-only.md'))).to.equal(true);
    expect(existsSync(path.join(req.dir, 'rollout-check.md'))).to.equal(false);
  });

  it('sends the token as Basic auth (token as password) to the repo host', async () => {
    const req = request(`${server.baseUrl}/private.git`, { token: server.token });
    expect(await fetcher.clone(req)).to.equal('cloned');
    expect(existsSync(path.join(req.dir, 'private-runbook.md'))).to.equal(true);
    const auth = server.requests.map((r) => r.authorization).filter(Boolean);
    expect(auth.length).to.be.greaterThan(0);
    for (const a of auth) expect(Buffer.from(a!.slice(6), 'base64').toString()).to.equal(`x-access-token:${server.token}`);
  });

  it('uses URL userinfo credentials', async () => {
    const req = request(`http://me:${server.token}@localhost:${server.port}/private.git`, { displayUrl: 'http://***:***@localhost/private.git' });
    expect(await fetcher.clone(req)).to.equal('cloned');
  });

  it('reports 401 without a credential as auth required, with git message and status', async () => {
    const e = await failure(request(`${server.baseUrl}/private.git`));
    expect(e.httpStatus).to.equal(401);
    expect(e.authRequired).to.equal(true);
    expect(e.message).to.equal(`Failed to clone ${server.baseUrl}/private.git (branch main): HTTP Error: 401 Unauthorized: Authentication required`);
  });

  it('a 401 with a wrong token is not "auth required" (a credential was sent)', async () => {
    const e = await failure(request(`${server.baseUrl}/private.git`, { token: 'wrong-token-value' }));
    expect(e.httpStatus).to.equal(401);
    expect(e.authRequired).to.equal(false);
    expect(e.message).to.not.contain('wrong-token-value');
  });

  it('drops the token on a redirect to another host (localhost -> 127.0.0.1)', async () => {
    const e = await failure(request(`${server.baseUrl}/redirect/private.git`, { token: server.token }));
    expect(e.httpStatus).to.equal(401);
    expect(e.message).to.contain(`not forwarded to 127.0.0.1:${server.port}`);
    const toIp = server.requests.filter((r) => r.host.startsWith('127.0.0.1'));
    expect(toIp.length).to.be.greaterThan(0);
    for (const r of toIp) expect(r.authorization).to.equal(undefined);
  });

  it('drops URL userinfo credentials on a cross-host redirect too', async () => {
    await failure(request(`http://me:${server.token}@localhost:${server.port}/redirect/private.git`, { displayUrl: 'x' }));
    const toIp = server.requests.filter((r) => r.host.startsWith('127.0.0.1'));
    expect(toIp.length).to.be.greaterThan(0);
    for (const r of toIp) expect(r.authorization).to.equal(undefined);
  });

  it('keeps the token on a same-host redirect', async () => {
    const req = request(`${server.baseUrl}/same-host-redirect/private.git`, { token: server.token });
    expect(await fetcher.clone(req)).to.equal('cloned');
  });

  it('refuses a redirect to a non-public IP literal when asked to', async () => {
    const e = await failure(request(`${server.baseUrl}/redirect/public.git`, { refuseNonPublicRedirects: true }));
    expect(e.message).to.contain('refused to follow a redirect to 127.0.0.1: it is a loopback address');
    expect(server.requests.filter((r) => r.host.startsWith('127.0.0.1'))).to.deep.equal([]);
  });

  it('echoes a text/plain error body verbatim with the status code', async () => {
    const e = await failure(request(`${server.baseUrl}/error-text/any.git`));
    expect(e.httpStatus).to.equal(503);
    expect(e.message).to.equal(
      `Failed to clone ${server.baseUrl}/error-text/any.git (branch main): HTTP Error: 503 Service Unavailable: ${server.plainErrorBody}`,
    );
  });

  it('does not echo an HTML error body', async () => {
    const e = await failure(request(`${server.baseUrl}/error-html/any.git`));
    expect(e.message).to.equal(`Failed to clone ${server.baseUrl}/error-html/any.git (branch main): HTTP Error: 500 Internal Server Error`);
  });

  it('redacts a credential the server reflects, raw or base64', async () => {
    const token = 'canary-token-FETCHER-7f3a9c';
    const e = await failure(request(`${server.baseUrl}/echo-auth/any.git`, { token }));
    const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
    expect(e.message).to.contain('received Basic ***');
    expect(e.message).to.not.contain(token);
    expect(e.message).to.not.contain(basic);
  });

  it('answers not-a-repository for a 200 that is not git', async () => {
    expect(await fetcher.clone(request(`${server.baseUrl}/not-a-repo/page`))).to.equal('not-a-repository');
  });

  it("reports a refused connection with git's message", async () => {
    const url = `http://localhost:${server.refusedPort}/repo.git`;
    const e = await failure(request(url));
    expect(e.httpStatus).to.equal(undefined);
    expect(e.message).to.match(new RegExp(`^Failed to clone ${url} \\(branch main\\): connect ECONNREFUSED (127\\.0\\.0\\.1|::1):${server.refusedPort}$`));
  });

  it('reports a missing branch', async () => {
    const e = await failure(request(`${server.baseUrl}/public.git`, { branch: 'no-such-branch' }));
    expect(e.message).to.contain('branch no-such-branch not found');
  });

  it('times out', async () => {
    const e = await failure(request(`${server.baseUrl}/hang/repo.git`, { timeoutMs: 300 }));
    expect(e.message).to.equal(`Failed to clone ${server.baseUrl}/hang/repo.git (branch main): timed out after 0.3 s`);
  });

  it('stops a clone that downloads more than its byte limit', async () => {
    const small = new IsomorphicGitFetcher({ maxBytes: 200 });
    const e = await failure(request(`${server.baseUrl}/public.git`), small);
    expect(e.message, e.message).to.contain('larger than the');
  });
});
