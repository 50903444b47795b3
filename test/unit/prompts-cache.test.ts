import { expect } from 'chai';
import { PromptsSourceError, ValidationError } from '../../domain/errors.js';
import { GitFetchError } from '../../domain/ports/git-fetcher.js';
import { filesWith, promptsHarness, TTL_MS } from '../support/prompts-harness.js';
import { rejection as rejected } from '../support/rejection.js';

const CONFIGURED = 'https://github.com/acme/prompts';
const OTHER_A = 'https://github.com/acme/a';
const OTHER_B = 'https://github.com/acme/b';

describe('prompt repo cache', () => {
  function setup() {
    const h = promptsHarness({ configuredRepo: CONFIGURED, serverToken: 'server-token' });
    h.serve(CONFIGURED, filesWith('configured'));
    h.serve(OTHER_A, filesWith('from-a'));
    h.serve(OTHER_B, filesWith('from-b'));
    return h;
  }
  const names = (out: { prompts: { name: string }[] }) => out.prompts.map((p) => p.name);

  it('serves a second request from the cache (one clone)', async () => {
    const h = setup();
    expect(names(await h.list.execute({}))).to.deep.equal(['configured']);
    expect(names(await h.list.execute({}))).to.deep.equal(['configured']);
    expect(h.fetcher.clones).to.have.length(1);
  });

  it('re-clones after the TTL and picks up new content', async () => {
    const h = setup();
    await h.list.execute({});
    h.serve(CONFIGURED, filesWith('configured', 'added-later'));
    h.clock.advance(TTL_MS - 1);
    expect(names(await h.list.execute({}))).to.deep.equal(['configured']);
    h.clock.advance(1);
    expect(names(await h.list.execute({}))).to.deep.equal(['added-later', 'configured']);
    expect(h.fetcher.clones).to.have.length(2);
    expect([...h.workspace.live]).to.deep.equal(['/clones/2']);
  });

  it('refresh reloads at once, without waiting for the TTL', async () => {
    const h = setup();
    await h.list.execute({});
    h.serve(CONFIGURED, filesWith('configured', 'new'));
    expect(await h.refresh.execute({})).to.deep.equal({ refreshed: true, promptsLoaded: 2, source: CONFIGURED });
    expect(names(await h.list.execute({}))).to.deep.equal(['configured', 'new']);
    expect(h.fetcher.clones).to.have.length(2);
    expect(h.workspace.live.size).to.equal(1);
  });

  it('holds one repo at a time: alternating repos re-clone, replaced clones are removed', async () => {
    const h = setup();
    await h.list.execute({ repo: OTHER_A });
    await h.list.execute({ repo: OTHER_B });
    expect(names(await h.list.execute({ repo: OTHER_A }))).to.deep.equal(['from-a']);
    await h.list.execute({});
    expect(h.fetcher.clones.map((c) => c.url)).to.deep.equal([OTHER_A, OTHER_B, OTHER_A, CONFIGURED]);
    expect([...h.workspace.live]).to.deep.equal(['/clones/4']);
  });

  it('a different path or branch of the same repo is another entry', async () => {
    const h = setup();
    h.serve(OTHER_A, filesWith('on-dev'), 'dev');
    expect(names(await h.list.execute({ repo: OTHER_A, branch: 'dev' }))).to.deep.equal(['on-dev']);
    expect(names(await h.list.execute({ repo: OTHER_A }))).to.deep.equal(['from-a']);
    expect(h.fetcher.clones).to.have.length(2);
  });

  it('keeps header requests in their own slot: the shared copy survives them', async () => {
    const h = setup();
    await h.list.execute({});
    await h.list.execute({ repo: OTHER_A, gitToken: 'user-token' });
    await h.list.execute({ repo: OTHER_B, gitToken: 'user-token' });
    await h.list.execute({});
    expect(h.fetcher.clones.map((c) => c.url)).to.deep.equal([CONFIGURED, OTHER_A, OTHER_B]);
    expect(h.workspace.live.size).to.equal(2);
  });

  it('a credentialed entry serves only the same token', async () => {
    const h = setup();
    h.serve('https://git.example.com/team/private', filesWith('secret'), 'main', 'good-token');
    const repo = 'https://git.example.com/team/private';
    expect(names(await h.list.execute({ repo, gitToken: 'good-token' }))).to.deep.equal(['secret']);
    expect(names(await h.list.execute({ repo, gitToken: 'good-token' }))).to.deep.equal(['secret']);
    const e = await rejected(h.list.execute({ repo, gitToken: 'wrong-token' }));
    expect(e).to.be.instanceOf(PromptsSourceError);
    expect(h.fetcher.clones).to.have.length(2);
  });

  it('the configured copy (server token) is never served to an override the host rules leave unauthenticated', async () => {
    const h = promptsHarness({ configuredRepo: 'https://git.internal.example/p', serverToken: 'server-token' });
    h.serve('https://git.internal.example/p', filesWith('internal'), 'main', 'server-token');
    expect(names(await h.list.execute({}))).to.deep.equal(['internal']);
    const e = await rejected(h.list.execute({ repo: 'https://git.internal.example/p' }));
    expect(e.message).to.contain('git.internal.example is not in the allowed repository hosts');
    expect(h.fetcher.clones.map((c) => c.token)).to.deep.equal(['server-token', undefined]);
    expect(names(await h.list.execute({}))).to.deep.equal(['internal']);
    expect(h.fetcher.clones).to.have.length(2);
  });

  it('concurrent requests for one repo share a single clone', async () => {
    const h = setup();
    let open!: () => void;
    h.fetcher.gate = new Promise<void>((r) => (open = r));
    const pending = Array.from({ length: 5 }, () => h.list.execute({ repo: OTHER_A }));
    await new Promise((r) => setImmediate(r));
    open();
    const results = await Promise.all(pending);
    for (const r of results) expect(names(r)).to.deep.equal(['from-a']);
    expect(h.fetcher.clones).to.have.length(1);
  });

  it('a failed clone keeps the cached copy and removes its own folder', async () => {
    const h = setup();
    await h.list.execute({});
    h.fetcher.remotes.set(OTHER_A, { fail: new GitFetchError('Failed to clone x: boom', 500) });
    await rejected(h.list.execute({ repo: OTHER_A }));
    expect([...h.workspace.live]).to.deep.equal(['/clones/1']);
    expect(names(await h.list.execute({}))).to.deep.equal(['configured']);
    expect(h.fetcher.clones).to.have.length(2);
  });

  it('a rejected override never reaches a clone or the cache', async () => {
    const h = setup();
    await h.list.execute({});
    for (const bad of [{ repo: 'http://127.0.0.1/x' }, { repo: OTHER_A, path: '../..' }, { repo: OTHER_A, branch: 'a b' }, { repo: 'file:///etc' }]) {
      expect(await rejected(h.list.execute({ ...bad, gitToken: 'tok' }))).to.be.instanceOf(ValidationError);
      expect(await rejected(h.refresh.execute(bad))).to.be.instanceOf(ValidationError);
    }
    expect(h.fetcher.clones).to.have.length(1);
    expect(names(await h.list.execute({}))).to.deep.equal(['configured']);
    expect(h.fetcher.clones).to.have.length(1);
  });

  it('a 200 that is not a repository gives zero prompts and leaves no folder', async () => {
    const h = setup();
    h.fetcher.remotes.set('https://example.com/page', { notARepository: true });
    expect(await h.list.execute({ repo: 'https://example.com/page' })).to.deep.equal({ prompts: [], source: 'https://example.com/page' });
    expect(h.workspace.live.size).to.equal(0);
  });

  it('records the clone in a span with the scrubbed URL only', async () => {
    const h = setup();
    await h.list.execute({ repo: 'https://me:pass-word-1@github.com/acme/a', gitToken: 'tok-123456' });
    const span = h.tracer.spans.find((s) => s.name === 'git.clone')!;
    expect(span.attributes).to.deep.equal({
      'vcs.repository.url.full': 'https://***:***@github.com/acme/a',
      'vcs.ref.head.name': 'main',
      'svc.prompts.cache_slot': 'credentialed',
    });
  });
});
