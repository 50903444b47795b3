import { expect } from 'chai';
import { PromptRepoCache, sourceIdentity, type RepoLoadRequest } from '../../../application/prompts/prompt-repo-cache.js';
import { validateRepoOverride } from '../../../domain/prompts/repo-override.js';
import { FakeTreeReader } from '../../support/fake-prompt-git.js';
import { filesWith, promptsHarness, TTL_MS } from '../../support/prompts-harness.js';
import { rejection } from '../../support/rejection.js';

const REPO = 'https://github.com/acme/prompts';

/** A cache of its own over the harness's fake git, disk and clock. */
function cacheOver(h: ReturnType<typeof promptsHarness>) {
  const { fetcher, workspace, clock, logger, tracer } = h;
  return new PromptRepoCache(
    { fetcher, workspace, reader: new FakeTreeReader(h.disk), clock, logger, tracer },
    { ttlMs: TTL_MS, cloneTimeoutMs: 5000, maxConcurrentClones: 2 },
  );
}
const request = (token?: string, repo = REPO): RepoLoadRequest => ({
  location: validateRepoOverride({ repo })!,
  credential: token ? { kind: 'header', token } : { kind: 'none', reason: 'no-server-token' },
  refuseNonPublicRedirects: true,
});

describe('PromptRepoCache: one copy per slot, fresh for the TTL, one clone per key at a time', () => {
  it('answers a fresh copy without cloning again, and clones anew (releasing the old folder) once the TTL has passed or when forced', async () => {
    const h = promptsHarness();
    h.serve(REPO, filesWith('a', 'b'));
    const cache = cacheOver(h);
    const r = request();
    const first = await cache.load('shared', r);
    expect(first.size).to.equal(2);
    expect(await cache.load('shared', r)).to.equal(first);
    expect(h.fetcher.clones).to.have.length(1);
    h.clock.advance(TTL_MS);
    expect(cache.peek('shared', r)).to.equal(undefined);
    const second = await cache.load('shared', r);
    expect(second).not.to.equal(first);
    await cache.load('shared', r, true);
    expect(h.fetcher.clones).to.have.length(3);
    expect([...h.workspace.live]).to.deep.equal(['/clones/3']);
  });

  it('concurrent loads of one key share a single clone', async () => {
    const h = promptsHarness();
    h.serve(REPO);
    const cache = cacheOver(h);
    let open!: () => void;
    h.fetcher.gate = new Promise((resolve) => (open = resolve));
    const loads = [cache.load('shared', request()), cache.load('shared', request())];
    open();
    const [a, b] = await Promise.all(loads);
    expect(a).to.equal(b);
    expect(h.fetcher.clones).to.have.length(1);
  });

  it('an entry serves only the same credential: another token is another key, and the two slots keep their copies apart', async () => {
    const h = promptsHarness();
    h.serve(REPO);
    const cache = cacheOver(h);
    const shared = await cache.load('shared', request());
    await cache.load('credentialed', request('token-1'));
    expect(cache.peek('credentialed', request('token-2'))).to.equal(undefined);
    expect(cache.peek('shared', request())).to.equal(shared);
    await cache.load('credentialed', request('token-2'));
    expect(h.fetcher.clones.map((c) => c.token)).to.deep.equal([undefined, 'token-1', 'token-2']);
  });

  it('peek never clones; cachedCount names a held copy by source, branch and folder (never by credential)', async () => {
    const h = promptsHarness();
    h.serve(REPO, filesWith('a', 'b', 'c'));
    const cache = cacheOver(h);
    const identity = sourceIdentity(request().location);
    expect(cache.peek('shared', request())).to.equal(undefined);
    expect(cache.cachedCount(identity)).to.equal(undefined);
    expect(h.fetcher.clones).to.deep.equal([]);
    await cache.load('credentialed', request('secret-token'));
    expect(cache.cachedCount(identity)).to.equal(3);
    expect(identity).not.to.include('secret-token');
  });

  it('a failed clone installs nothing and leaves no folder behind; a page that is no repository serves no prompts', async () => {
    const h = promptsHarness();
    const cache = cacheOver(h);
    await rejection(cache.load('shared', request()));
    expect(h.workspace.live.size).to.equal(0);
    expect(cache.peek('shared', request())).to.equal(undefined);
    h.fetcher.remotes.set(REPO, { notARepository: true });
    expect((await cache.load('shared', request())).size).to.equal(0);
    expect(h.workspace.live.size).to.equal(0);
  });
});
