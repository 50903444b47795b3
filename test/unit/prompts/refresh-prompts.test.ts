import { expect } from 'chai';
import { RefreshPrompts } from '../../../application/prompts/refresh-prompts.js';
import { PromptsSourceError } from '../../../domain/errors.js';
import { filesWith, promptsHarness } from '../../support/prompts-harness.js';
import { rejection } from '../../support/rejection.js';

const url = 'https://git.corp.example/team/prompts';

describe('application/prompts/refresh-prompts: reload the resolved source now', () => {
  it('reloads whatever the TTL and counts the prompts loaded', async () => {
    const h = promptsHarness({ configuredRepo: url, serverToken: 'the-token' });
    h.serve(url, filesWith('one'), 'main', 'the-token');
    const refresh = new RefreshPrompts(h.resolver, h.logger);
    expect(await refresh.execute({})).to.deep.equal({ refreshed: true, promptsLoaded: 1, source: url });
    h.serve(url, filesWith('one', 'two'), 'main', 'the-token');
    expect(await refresh.execute({})).to.deep.equal({ refreshed: true, promptsLoaded: 2, source: url });
  });

  it('answers refreshed false, with the cached count, when the host rules withhold the credential, and logs it', async () => {
    const h = promptsHarness({ configuredRepo: url, serverToken: 'the-token' });
    h.serve(url, filesWith('one', 'two'), 'main', 'the-token');
    const refresh = new RefreshPrompts(h.resolver, h.logger);
    await refresh.execute({});
    // an override of a host not allowed: the server token is withheld, and the clone needs one
    expect(await refresh.execute({ repo: url })).to.deep.equal({ refreshed: false, promptsLoaded: 2, source: url });
    expect(h.logger.lines.filter((l) => l.level === 'warn').map((l) => l.msg)).to.deep.equal([
      'prompts refresh skipped: credential withheld by the host rules',
    ]);
  });

  it('fails on any other failure', async () => {
    const h = promptsHarness();
    expect(await rejection(new RefreshPrompts(h.resolver, h.logger).execute({ repo: 'https://github.com/acme/missing' }))).to.be.instanceOf(PromptsSourceError);
  });
});
