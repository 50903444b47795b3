import { expect } from 'chai';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ValidationError } from '../../domain/errors.js';
import { GitPublishError, type PublishRequest } from '../../domain/ports/git-publisher.js';
import { DataDirCloneWorkspace } from '../../infrastructure/git/data-dir-clone-workspace.js';
import { IsomorphicGitPublisher } from '../../infrastructure/git/isomorphic-git-publisher.js';
import { CapturingLogger } from '../support/capturing-logger.js';
import { startGitHttpServer, type GitHttpServer } from '../support/git-http-server.js';

const DEPLOY = '# the web tier\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web # keep this name\nspec:\n  replicas: 1\n';

describe('IsomorphicGitPublisher against git http-backend with receive-pack', function () {
  this.timeout(30000);
  let server: GitHttpServer;
  let dataDir: string;
  let publisher: IsomorphicGitPublisher;

  before(async () => {
    server = await startGitHttpServer({
      gitops: { files: { 'README.md': '# cluster config\n', 'apps/web/deployment.yaml': DEPLOY }, branches: { release: { 'README.md': 'release\n' } } },
      guarded: { files: { 'README.md': 'x\n' }, protectedBranches: ['main', 'locked'], branches: { locked: { 'a.txt': 'a\n' } } },
      linked: { files: { 'README.md': 'x\n', escape: { symlink: '/tmp' } } },
    });
  });
  after(async () => server.close());
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-push-'));
    publisher = new IsomorphicGitPublisher({
      workspace: new DataDirCloneWorkspace(dataDir, new CapturingLogger(), 'git-deliveries'),
      internalHosts: ['localhost'],
    });
    server.requests.length = 0;
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  const req = (repo: string, extra: Partial<PublishRequest> = {}): PublishRequest => ({
    url: `${server.baseUrl}/${repo}.git`,
    displayUrl: `${server.baseUrl}/${repo}.git`,
    token: server.token,
    branch: 'svc/sol_1',
    message: 'svc: deploy web (solution sol_1)',
    author: { name: 'svc', email: 'svc@localhost' },
    change: async () => [{ path: 'web/deployment-web.yaml', content: 'kind: Deployment\n' }],
    timeoutMs: 20000,
    ...extra,
  });

  async function failure(p: Promise<unknown>): Promise<Error> {
    try {
      await p;
    } catch (e) {
      return e as Error;
    }
    throw new Error('expected a failure');
  }

  it('creates the branch from the default branch, commits and pushes; git reads the files back; the checkout is removed', async () => {
    const out = await publisher.publish(req('gitops'));
    expect(out).to.include({ branch: 'svc/sol_1', baseBranch: 'main', branchCreated: true, changed: true });
    expect(out.files).to.deep.equal(['web/deployment-web.yaml']);
    expect(server.git('gitops', ['rev-parse', 'refs/heads/svc/sol_1']).trim()).to.equal(out.commit);
    expect(server.show('gitops', 'svc/sol_1', 'web/deployment-web.yaml')).to.equal('kind: Deployment\n');
    expect(server.show('gitops', 'svc/sol_1', 'README.md')).to.equal('# cluster config\n');
    expect(server.git('gitops', ['log', '-1', '--format=%an <%ae>|%s', 'svc/sol_1']).trim()).to.equal('svc <svc@localhost>|svc: deploy web (solution sol_1)');
    expect(server.git('gitops', ['rev-parse', 'svc/sol_1~1']).trim()).to.equal(server.git('gitops', ['rev-parse', 'main']).trim());
    expect(server.show('gitops', 'main', 'web/deployment-web.yaml')).to.equal(undefined);
    expect(readdirSync(path.join(dataDir, 'git-deliveries'))).to.deep.equal([]);
    // the token went to the repository's origin only, and pushes carried it
    expect(server.requests.filter((r) => r.path.endsWith('git-receive-pack')).every((r) => r.authorization?.startsWith('Basic '))).to.equal(true);
  });

  it('commits on top of an existing branch, and an unchanged delivery commits nothing', async () => {
    const first = await publisher.publish(req('gitops', { branch: 'svc/again' }));
    const second = await publisher.publish(
      req('gitops', { branch: 'svc/again', change: async () => [{ path: 'web/deployment-web.yaml', content: 'kind: Deployment\nx: 1\n' }] }),
    );
    expect(second).to.include({ branchCreated: false, changed: true });
    expect(server.git('gitops', ['rev-parse', 'svc/again~1']).trim()).to.equal(first.commit);
    const third = await publisher.publish(
      req('gitops', { branch: 'svc/again', change: async () => [{ path: 'web/deployment-web.yaml', content: 'kind: Deployment\nx: 1\n' }] }),
    );
    expect(third).to.include({ changed: false, commit: second.commit });
  });

  it('starts from a named base branch, and gives the change the tree it starts from', async () => {
    let seen: string[] = [];
    const out = await publisher.publish(
      req('gitops', {
        branch: 'svc/from-release',
        baseBranch: 'release',
        change: async (tree) => {
          seen = await tree.list('');
          return [{ path: 'README.md', content: `${await tree.read('README.md')}more\n` }];
        },
      }),
    );
    expect(out.baseBranch).to.equal('release');
    expect(seen).to.deep.equal(['README.md']);
    expect(server.show('gitops', 'svc/from-release', 'README.md')).to.equal('release\nmore\n');
  });

  it('refuses to push to the base branch or the default branch (400), and a missing base branch, before pushing', async () => {
    const toMain = await failure(publisher.publish(req('gitops', { branch: 'main' })));
    expect(toMain).to.be.instanceOf(ValidationError);
    expect(toMain.message).to.include('svc never pushes to the base branch');
    const toBase = await failure(publisher.publish(req('gitops', { branch: 'release', baseBranch: 'release' })));
    expect(toBase).to.be.instanceOf(ValidationError);
    const missing = await failure(publisher.publish(req('gitops', { baseBranch: 'nope' })));
    expect(missing.message).to.equal(`The base branch nope does not exist in ${server.baseUrl}/gitops.git`);
    expect(server.requests.filter((r) => r.method === 'POST' && r.path.endsWith('git-receive-pack'))).to.deep.equal([]);
  });

  it('a protected branch refused by the pre-receive hook is a 502 naming the repository and the reason', async () => {
    const e = await failure(publisher.publish(req('guarded', { branch: 'locked', baseBranch: 'main' })));
    expect(e).to.be.instanceOf(GitPublishError);
    expect(e.message).to.include(`Push to ${server.baseUrl}/guarded.git (branch locked) failed: the remote refused the update`);
    expect(e.message).to.include('pre-receive hook declined').and.include('GH006: Protected branch update failed');
    expect(server.show('guarded', 'locked', 'web/deployment-web.yaml')).to.equal(undefined);
  });

  it('a branch that moves on the remote during the delivery is refused as non-fast-forward, never forced', async () => {
    await publisher.publish(req('gitops', { branch: 'svc/race' }));
    server.beforeNextPush('gitops', () => server.resetBranch('gitops', 'svc/race', { 'other.txt': 'someone else\n' }));
    const e = await failure(publisher.publish(req('gitops', { branch: 'svc/race', change: async () => [{ path: 'web/x.yaml', content: 'x: 2\n' }] })));
    expect(e).to.be.instanceOf(GitPublishError);
    expect(e.message).to.include('non-fast-forward').and.include('svc never force-pushes');
    expect(server.show('gitops', 'svc/race', 'other.txt')).to.equal('someone else\n');
  });

  it('a token without write access is a 502 with the status and the text the remote sent, the token scrubbed', async () => {
    const e = await failure(publisher.publish(req('gitops', { token: server.readOnlyToken, branch: 'svc/ro' })));
    expect(e).to.be.instanceOf(GitPublishError);
    expect((e as GitPublishError).httpStatus).to.equal(403);
    expect(e.message).to.include('403').and.include('the token has read access only');
    expect(e.message).to.not.include(server.readOnlyToken);
  });

  it('a host name resolving to loopback is refused at connect time unless listed internal', async () => {
    const guarded = new IsomorphicGitPublisher({ workspace: new DataDirCloneWorkspace(dataDir, new CapturingLogger(), 'git-deliveries') });
    const e = await failure(guarded.publish(req('gitops', { branch: 'svc/ssrf' })));
    expect(e).to.be.instanceOf(GitPublishError);
    expect(e.message).to.include('refused to connect to localhost').and.include('loopback');
    expect(server.requests).to.deep.equal([]);
  });

  it('refuses to write through a symbolic link of the repository', async () => {
    const e = await failure(publisher.publish(req('linked', { change: async () => [{ path: 'escape/pwned.txt', content: 'x' }] })));
    expect(e).to.be.instanceOf(ValidationError);
    expect(e.message).to.include('escape is a symbolic link');
  });
});
