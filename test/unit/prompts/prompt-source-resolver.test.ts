import { expect } from 'chai';
import { BuiltinPrompts } from '../../../application/prompts/builtin-prompts.js';
import { sourceIdentity } from '../../../application/prompts/prompt-repo-cache.js';
import { BUILT_IN_SOURCE, PromptSourceResolver } from '../../../application/prompts/prompt-source-resolver.js';
import type { IngestedPromptSource } from '../../../application/ingested-prompt-source.js';
import type { PromptLibrary } from '../../../domain/prompts/prompt-library.js';
import { validateRepoOverride } from '../../../domain/prompts/repo-override.js';
import { CapturingLogger } from '../../support/capturing-logger.js';
import { FakeTreeReader } from '../../support/fake-prompt-git.js';
import { filesWith, promptsHarness } from '../../support/prompts-harness.js';
import { rejection } from '../../support/rejection.js';

const CONFIGURED = 'https://github.com/acme/team-prompts';
const OVERRIDE = 'https://github.com/acme/other-prompts';
const SERVER_TOKEN = 'server-token-canary-91b3';

/** A resolver of its own over the harness's cache and disk, with an uploaded-source lookup when given one. */
function resolverOver(h: ReturnType<typeof promptsHarness>, ingested?: IngestedPromptSource) {
  const builtins = new BuiltinPrompts(h.settings.builtinDir, new FakeTreeReader(h.disk), new CapturingLogger());
  return new PromptSourceResolver(h.settings, h.cache, builtins, ingested);
}

describe('PromptSourceResolver: ?source= over repo over the configured repository over the built-ins', () => {
  it('without a configured repository, a request without repo is served the built-ins, and peekDefault sees them only once loaded', async () => {
    const h = promptsHarness();
    const resolver = resolverOver(h);
    expect(resolver.peekDefault()).to.equal(undefined);
    const resolved = await resolver.resolve({});
    expect(resolved.source).to.equal(BUILT_IN_SOURCE);
    expect(resolver.peekDefault()).to.deep.equal(resolved);
    expect(h.fetcher.clones).to.deep.equal([]);
  });

  it('the configured repository is cloned with the server token; a token header does not change that request', async () => {
    const h = promptsHarness({ configuredRepo: CONFIGURED, serverToken: SERVER_TOKEN });
    h.serve(CONFIGURED, filesWith('team'));
    const resolver = resolverOver(h);
    const resolved = await resolver.resolve({ gitToken: 'caller-token' });
    expect(resolved.source).to.equal(CONFIGURED);
    expect(h.fetcher.clones.map((c) => c.token)).to.deep.equal([SERVER_TOKEN]);
    // one loaded copy: peekDefault answers it (the same library object, so a cache keyed by it cannot go stale) without cloning again
    expect(resolver.peekDefault()!.library).to.equal(resolved.library);
    expect(resolver.peekDefault()).to.equal(resolver.peekDefault());
    expect(h.fetcher.clones).to.have.length(1);
  });

  it("a repo override wins over the configured repository and is cloned with the caller's token header", async () => {
    const h = promptsHarness({ configuredRepo: CONFIGURED, serverToken: SERVER_TOKEN });
    h.serve(OVERRIDE, filesWith('other'), 'main', 'caller-token');
    const resolved = await resolverOver(h).resolve({ repo: OVERRIDE, gitToken: '  caller-token  ' });
    expect(resolved.source).to.equal(OVERRIDE);
    expect(h.fetcher.clones.map((c) => [c.url, c.token])).to.deep.equal([[OVERRIDE, 'caller-token']]);
  });

  it('an override that fails validation is refused before any clone', async () => {
    const h = promptsHarness({ configuredRepo: CONFIGURED });
    const err = await rejection(resolverOver(h).resolve({ repo: OVERRIDE, path: '../../etc' }));
    expect(err.name).to.equal('ValidationError');
    expect(h.fetcher.clones).to.deep.equal([]);
  });

  it('a clone that fails is explained to the caller, naming the scrubbed repository and never the token', async () => {
    const h = promptsHarness();
    h.serve(OVERRIDE, filesWith('other'), 'main', 'the-right-token');
    const err = await rejection(resolverOver(h).resolve({ repo: OVERRIDE, gitToken: 'a-wrong-token' }));
    expect(err.message).to.include('github.com/acme/other-prompts').and.not.include('a-wrong-token');
  });

  it('?source= is answered by the uploaded sources and never reaches git, even beside a repo; without them wired it is an error', async () => {
    const h = promptsHarness({ configuredRepo: CONFIGURED });
    const library = { prompts: [] } as unknown as PromptLibrary;
    const asked: string[] = [];
    const ingested = { resolve: async (id: string) => (asked.push(id), { library, source: `ingested:${id}` }) } as unknown as IngestedPromptSource;
    expect(await resolverOver(h, ingested).resolve({ source: 'skills-1', repo: OVERRIDE })).to.deep.equal({ library, source: 'ingested:skills-1' });
    expect(asked).to.deep.equal(['skills-1']);
    expect(h.fetcher.clones).to.deep.equal([]);
    expect((await rejection(resolverOver(h).resolve({ source: 'skills-1' }))).message).to.match(/not wired/);
  });

  it('counts the prompts of a cached copy, and 0 for a source never loaded', async () => {
    const h = promptsHarness();
    h.serve(OVERRIDE, filesWith('a', 'b', 'c'));
    const resolver = resolverOver(h);
    const identity = sourceIdentity(validateRepoOverride({ repo: OVERRIDE })!);
    expect(resolver.cachedCount(identity)).to.equal(0);
    await resolver.resolve({ repo: OVERRIDE });
    expect(resolver.cachedCount(identity)).to.equal(3);
  });
});
