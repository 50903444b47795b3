import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PullRequestError, type PullRequestSpec } from '../../domain/ports/pull-request-host.js';
import { HttpPullRequestHost } from '../../infrastructure/gitops/http-pull-request-host.js';
import { GitHostApi } from '../support/git-host-api.js';

const TOKEN = 'pr-canary-token-0123456789';

describe('HttpPullRequestHost against the GitHub and GitLab API stand-ins', () => {
  let github: GitHostApi;
  let gitlab: GitHostApi;
  const host = new HttpPullRequestHost(2000);
  const spec = (api: GitHostApi, extra: Partial<PullRequestSpec> = {}): PullRequestSpec => ({
    provider: api.flavour,
    apiUrl: api.apiUrl,
    project: api.flavour === 'github' ? 'team/shop' : 'group/sub/shop',
    head: 'svc/x',
    base: 'main',
    title: 'svc: a web server',
    body: 'body',
    token: TOKEN,
    ...extra,
  });
  async function failure(p: Promise<unknown>): Promise<PullRequestError> {
    try {
      await p;
    } catch (e) {
      expect(e).to.be.instanceOf(PullRequestError);
      return e as PullRequestError;
    }
    throw new Error('expected a failure');
  }

  beforeEach(async () => {
    github = await new GitHostApi('github', TOKEN).start();
    github.projects.add('team/shop');
    gitlab = await new GitHostApi('gitlab', TOKEN).start();
    gitlab.projects.add('group/sub/shop');
  });
  afterEach(async () => {
    await github.close();
    await gitlab.close();
  });

  it('creates, then answers the open one (GitHub 422, GitLab 409) instead of failing', async () => {
    for (const api of [github, gitlab]) {
      const first = await host.open(spec(api));
      expect(first).to.deep.include({ number: 1, existing: false });
      expect(await host.open(spec(api))).to.deep.equal({ ...first, existing: true });
      expect(api.requests.map((r) => r.method)).to.deep.equal(['POST', 'POST', 'GET']);
    }
    expect(gitlab.requests[0].path).to.equal('/api/v4/projects/group%2Fsub%2Fshop/merge_requests');
    expect(gitlab.requests[0].body).to.deep.include({ source_branch: 'svc/x', target_branch: 'main', description: 'body' });
    expect(github.requests[2].path).to.equal('/api/v3/repos/team/shop/pulls?state=open&head=team%3Asvc%2Fx&base=main');
  });

  it('a bad token, an unknown project and a host error are 502 naming the project and the reason, the token scrubbed', async () => {
    const bad = await failure(host.open(spec(github, { token: 'wrong-token-0123' })));
    expect(bad.message).to.equal(
      `Could not open a pull request for team/shop (svc/x into main) on localhost:${github.port}: the API answered 401: Bad credentials`,
    );
    const unknown = await failure(host.open(spec(gitlab, { project: 'nope/x' })));
    expect(unknown.message).to.include('merge request for nope/x').and.include('404: 404 Project Not Found');
    github.failWith = { status: 500, body: { message: `internal error while using ${TOKEN}` } };
    const echoed = await failure(host.open(spec(github)));
    expect(echoed.message).to.include('answered 500').and.not.include(TOKEN);
  });

  it('an unreachable or silent host, and a redirect (which would carry the token), are 502', async () => {
    // answers a redirect to /redirect..., and never answers anything else
    const silent = http.createServer((req, res) => {
      if (req.url?.includes('redirect')) res.writeHead(302, { Location: 'http://127.0.0.1:1/steal' }).end();
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as AddressInfo).port;
    try {
      const timeout = await failure(host.open(spec(github, { apiUrl: `http://127.0.0.1:${port}/api/v3` })));
      expect(timeout.message).to.include('timed out after 2 s');
      const redirected = await failure(host.open(spec(github, { apiUrl: `http://127.0.0.1:${port}/redirect` })));
      expect(redirected.message).to.include('could not be reached');
      await github.close();
      const refused = await failure(host.open(spec(github)));
      expect(refused.message).to.include('could not be reached');
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });
});
