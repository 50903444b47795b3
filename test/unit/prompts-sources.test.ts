import { expect } from 'chai';
import { NotFoundError, PromptsSourceError, ValidationError } from '../../domain/errors.js';
import { promptFiles, promptMarkdown } from '../support/prompt-files.js';
import { filesWith, promptsHarness } from '../support/prompts-harness.js';
import { rejection as rejected } from '../support/rejection.js';

describe('prompt sources (SPEC.md source and credential tables)', () => {
  describe('source selection', () => {
    it('repo supplied: that repo, source is the URL with credentials scrubbed', async () => {
      const h = promptsHarness({ configuredRepo: 'https://github.com/acme/configured' });
      h.serve('https://github.com/acme/override', filesWith('override-prompt'));
      const out = await h.list.execute({ repo: 'https://user:pa55word@github.com/acme/override?token=abc' });
      expect(out.source).to.equal('https://***:***@github.com/acme/override?token=***');
      expect(out.prompts.map((p) => p.name)).to.deep.equal(['override-prompt']);
    });

    it('repo omitted, configured repo set: the configured repo (scrubbed)', async () => {
      const h = promptsHarness({ configuredRepo: 'https://bot:s3cr3t-value@github.com/acme/configured' });
      h.serve('https://github.com/acme/configured', filesWith('configured-prompt'));
      const out = await h.list.execute({});
      expect(out).to.deep.equal({
        prompts: [{ name: 'configured-prompt', description: 'configured-prompt prompt' }],
        source: 'https://***:***@github.com/acme/configured',
      });
    });

    it('repo omitted, no configured repo: the built-ins, source built-in', async () => {
      const h = promptsHarness();
      const out = await h.list.execute({});
      expect(out.source).to.equal('built-in');
      expect(out.prompts.map((p) => p.name)).to.deep.equal(['builtin-one', 'builtin-two']);
      expect(h.fetcher.clones).to.have.length(0);
    });

    it('path and branch apply with repo; they and the header never change source', async () => {
      const h = promptsHarness();
      const repo = 'https://github.com/acme/mono';
      h.serve(repo, promptFiles({ 'prompts/team/a.md': promptMarkdown('description: a', 'x'), 'root.md': promptMarkdown('description: r', 'y') }));
      h.serve(repo, filesWith('on-release'), 'release/1.0');
      const plain = await h.list.execute({ repo });
      const sub = await h.list.execute({ repo, path: 'prompts/team' });
      const branch = await h.list.execute({ repo, branch: 'release/1.0', gitToken: 'hdr-token' });
      expect(plain.prompts.map((p) => p.name)).to.deep.equal(['root']);
      expect(sub.prompts.map((p) => p.name)).to.deep.equal(['a']);
      expect(branch.prompts.map((p) => p.name)).to.deep.equal(['on-release']);
      expect(new Set([plain.source, sub.source, branch.source])).to.deep.equal(new Set([repo]));
    });

    it('the configured repo uses SVC_USER_PROMPTS_PATH', async () => {
      const h = promptsHarness({ configuredRepo: 'https://github.com/acme/c', configuredPath: 'prompts' });
      h.serve(
        'https://github.com/acme/c',
        promptFiles({ 'prompts/in.md': promptMarkdown('description: in', ''), 'out.md': promptMarkdown('description: out', '') }),
      );
      expect((await h.list.execute({})).prompts.map((p) => p.name)).to.deep.equal(['in']);
    });

    it('path and branch without repo are checked but have no effect (configured case)', async () => {
      const h = promptsHarness();
      const out = await h.list.execute({ path: 'x', branch: 'dev', gitToken: 'hdr' });
      expect(out.source).to.equal('built-in');
      expect(await rejected(h.list.execute({ path: '/abs' }))).to.be.instanceOf(ValidationError);
    });
  });

  describe('credential per clone', () => {
    function setup() {
      const h = promptsHarness({ configuredRepo: 'https://git.internal.example/configured', serverToken: 'server-token' });
      for (const url of [
        'https://github.com/acme/p',
        'https://gitlab.example.com/acme/p',
        'http://github.com/acme/p',
        'http://git.example.com/acme/p',
        'https://git.internal.example/configured',
      ])
        h.serve(url);
      return h;
    }
    const tokenOf = async (input: Record<string, string>) => {
      const h = setup();
      await h.list.execute(input);
      return h.fetcher.clones[0].token;
    };

    it('header present: the header token for any host and scheme', async () => {
      for (const repo of ['https://github.com/acme/p', 'https://gitlab.example.com/acme/p', 'http://github.com/acme/p', 'http://git.example.com/acme/p']) {
        expect(await tokenOf({ repo, gitToken: 'header-token' })).to.equal('header-token');
      }
    });
    it('header absent, https on an allowlisted host: the server token', async () => {
      expect(await tokenOf({ repo: 'https://github.com/acme/p' })).to.equal('server-token');
    });
    it('header absent, https on a host not allowlisted: none', async () => {
      expect(await tokenOf({ repo: 'https://gitlab.example.com/acme/p' })).to.equal(undefined);
    });
    it('header absent, http on any host: none', async () => {
      expect(await tokenOf({ repo: 'http://github.com/acme/p' })).to.equal(undefined);
      expect(await tokenOf({ repo: 'http://git.example.com/acme/p' })).to.equal(undefined);
    });
    it('no repo: the server token for the configured repo, whatever its host; the header is ignored', async () => {
      expect(await tokenOf({})).to.equal('server-token');
      expect(await tokenOf({ gitToken: 'header-token' })).to.equal('server-token');
    });
    it('only overrides refuse redirects to non-public addresses', async () => {
      const h = setup();
      await h.list.execute({});
      await h.list.execute({ repo: 'https://github.com/acme/p' });
      expect(h.fetcher.clones.map((c) => c.refuseNonPublicRedirects)).to.deep.equal([false, true]);
    });
  });

  describe('502 messages', () => {
    function privateRemote(url: string) {
      const h = promptsHarness({ serverToken: 'server-token' });
      h.serve(url, filesWith('p'), 'main', 'the-right-token');
      return h;
    }

    it('private repo on a host not allowlisted, no header: names the host and both remedies', async () => {
      const url = 'https://git.corp.example/team/prompts';
      const e = await rejected(privateRemote(url).list.execute({ repo: url }));
      expect(e).to.be.instanceOf(PromptsSourceError);
      expect(e.message).to.equal(
        `Failed to clone ${url} (branch main): HTTP Error: 401 Unauthorized. The repository needs a credential and none was sent: ` +
          `git.corp.example is not in the allowed repository hosts, so the server's git token is not used for it. ` +
          `Either send a token for git.corp.example in the X-Svc-Git-Token header, or add git.corp.example to the allowed repository hosts ` +
          `(SVC_ALLOWED_REPO_HOSTS, chart value gitops.allowedRepoHosts).`,
      );
    });

    it('http:// repo without header: explains the scheme and offers only the https remedy', async () => {
      const url = 'http://github.com/acme/private';
      const e = await rejected(privateRemote(url).list.execute({ repo: url }));
      expect(e.message).to.equal(
        `Failed to clone ${url} (branch main): HTTP Error: 401 Unauthorized. The repository needs a credential and none was sent: ` +
          `the server's git token is only ever sent over https://, and this URL uses http://. Use the https:// URL of the repository.`,
      );
      expect(e.message).to.not.contain('X-Svc-Git-Token');
      expect(e.message).to.not.contain('allowed repository hosts');
    });

    it('allowlisted host without a server token: says SVC_GIT_TOKEN is not set', async () => {
      const h = promptsHarness();
      h.serve('https://github.com/acme/private', filesWith('p'), 'main', 'x-token');
      const e = await rejected(h.list.execute({ repo: 'https://github.com/acme/private' }));
      expect(e.message).to.contain('the server has no git token (SVC_GIT_TOKEN is not set). Send a token in the X-Svc-Git-Token header');
    });

    it('a wrong header token is a plain scrubbed clone error, no remedy text', async () => {
      const url = 'https://git.corp.example/team/prompts';
      const e = await rejected(privateRemote(url).list.execute({ repo: url, gitToken: 'wrong-token' }));
      expect(e.message).to.equal(`Failed to clone ${url} (branch main): HTTP Error: 401 Unauthorized`);
    });

    it('a public repo on an unlisted host clones unauthenticated', async () => {
      const h = promptsHarness({ serverToken: 'server-token' });
      h.serve('https://git.corp.example/public', filesWith('open'));
      expect((await h.list.execute({ repo: 'https://git.corp.example/public' })).prompts).to.have.length(1);
    });
  });

  describe('refresh', () => {
    it('reports refreshed, count and source for built-ins', async () => {
      expect(await promptsHarness().refresh.execute({})).to.deep.equal({ refreshed: true, promptsLoaded: 2, source: 'built-in' });
    });

    it('gated by the host rules: not a failure, refreshed false, the cached copy keeps being served', async () => {
      const url = 'https://git.corp.example/team/prompts';
      const h = promptsHarness({ configuredRepo: url, serverToken: 'the-right-token' });
      h.serve(url, filesWith('one', 'two', 'three'), 'main', 'the-right-token');
      h.serve('http://git.corp.example/other', filesWith('x'), 'main', 'the-right-token');
      expect(await h.refresh.execute({})).to.deep.equal({ refreshed: true, promptsLoaded: 3, source: url });
      expect(await h.refresh.execute({ repo: url })).to.deep.equal({ refreshed: false, promptsLoaded: 3, source: url });
      expect(await h.refresh.execute({ repo: 'http://git.corp.example/other' })).to.deep.equal({
        refreshed: false,
        promptsLoaded: 0,
        source: 'http://git.corp.example/other',
      });
      expect((await h.list.execute({})).prompts).to.have.length(3);
      expect(h.logger.lines.some((l) => l.level === 'warn' && l.msg.startsWith('prompts refresh skipped'))).to.equal(true);
    });

    it('other failures still fail', async () => {
      const h = promptsHarness();
      expect(await rejected(h.refresh.execute({ repo: 'https://github.com/acme/missing' }))).to.be.instanceOf(PromptsSourceError);
    });
  });

  describe('render', () => {
    it('renders with arguments and carries source', async () => {
      const h = promptsHarness();
      h.serve(
        'https://github.com/acme/p',
        promptFiles({ 'greet.md': promptMarkdown('description: Greets\narguments:\n  - name: who\n    required: true', 'Hello {{who}}') }),
      );
      const out = await h.render.execute({ name: 'greet', arguments: { who: 'ops' }, repo: 'https://github.com/acme/p' });
      expect(out).to.deep.equal({
        description: 'Greets',
        messages: [{ role: 'user', content: { type: 'text', text: 'Hello ops' } }],
        source: 'https://github.com/acme/p',
      });
      const missing = await rejected(h.render.execute({ name: 'greet', repo: 'https://github.com/acme/p' }));
      expect(missing.message).to.equal('Missing required argument: who');
    });

    it('an unknown prompt is PROMPT_NOT_FOUND', async () => {
      const e = await rejected(promptsHarness().render.execute({ name: 'nope' }));
      expect(e).to.be.instanceOf(NotFoundError);
      expect((e as NotFoundError).code).to.equal('PROMPT_NOT_FOUND');
      expect(e.message).to.equal('Prompt not found: nope');
    });
  });
});
