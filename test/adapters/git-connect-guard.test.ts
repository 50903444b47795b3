import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { GitFetchError, type CloneRequest } from '../../domain/ports/git-fetcher.js';
import { ConnectGuard, pinnedLookup, type HostResolver, type ResolvedAddress } from '../../infrastructure/git/connect-guard.js';
import { IsomorphicGitFetcher } from '../../infrastructure/git/isomorphic-git-fetcher.js';
import { startGitHttpServer, type GitHttpServer } from '../support/git-http-server.js';
import { PROMPT_REPOS } from '../support/prompt-repos.js';

/** A resolver from a table; no real DNS. Records the names asked for. */
function tableResolver(table: Record<string, string[]>): HostResolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (name: string): Promise<ResolvedAddress[]> => {
    asked.push(name);
    const addresses = table[name];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { asked });
}

async function refusal(guard: ConnectGuard, url: string, viaRedirect = false): Promise<string> {
  try {
    await guard.addressesFor(new URL(url), viaRedirect);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error(`expected ${url} to be refused`);
}

describe('connect-time guard for per-request clones', () => {
  describe('ConnectGuard', () => {
    const resolver = tableResolver({
      'intranet.example.test': ['10.20.30.40'],
      'rebind.example.test': ['93.184.215.14', '127.0.0.1'],
      'cgnat.example.test': ['100.100.1.1'],
      'v6-ula.example.test': ['fd00:ec2::254'],
      'v6-mapped.example.test': ['::ffff:169.254.169.254'],
      'nat64.example.test': ['64:ff9b::a00:1'],
      'teredo.example.test': ['2001:0:4136:e378:8000:63bf:3fff:fdd2'],
      'zone.example.test': ['fe80::1%eth0'],
      'garbage.example.test': ['not-an-address'],
      'public.example.test': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
      'git.corp.example.test': ['10.1.2.3'],
    });
    const guard = new ConnectGuard({ enabled: true, internalHosts: ['git.corp.example.test'], resolve: resolver });

    const REFUSED: [string, string][] = [
      ['http://intranet.example.test/r.git', 'private'],
      ['https://rebind.example.test/r.git', 'loopback'],
      ['https://cgnat.example.test/r.git', 'private'],
      ['https://v6-ula.example.test/r.git', 'unique-local'],
      ['https://v6-mapped.example.test/r.git', 'link-local'],
      ['https://nat64.example.test/r.git', 'private'],
      ['https://teredo.example.test/r.git', 'reserved'],
      ['https://zone.example.test/r.git', 'link-local'],
      ['https://garbage.example.test/r.git', 'reserved'],
      ['https://INTRANET.Example.Test./r.git', 'private'],
    ];
    for (const [url, kind] of REFUSED) {
      it(`refuses ${url}: resolves to a ${kind} address (the address is not echoed)`, async () => {
        const message = await refusal(guard, url);
        expect(message).to.match(
          new RegExp(`^refused to connect to [^:]+: the name resolves to a ${kind} address, not a public destination this server may fetch prompts from`),
        );
        expect(message).to.contain('SVC_REPO_INTERNAL_HOSTS');
        expect(message).to.not.match(/10\.20|127\.0|fd00|169\.254|a00:1/);
      });
    }

    it('says when a redirect led there', async () => {
      expect(await refusal(guard, 'https://intranet.example.test/r.git', true)).to.contain(
        'intranet.example.test (reached through a redirect): the name resolves to a private address',
      );
    });

    it('refuses IP literals it is handed directly (a redirect target), with the kind', async () => {
      expect(await refusal(guard, 'http://169.254.169.254/latest')).to.equal(
        'refused to connect to 169.254.169.254: it is a link-local address, not a public destination this server may fetch prompts from',
      );
      expect(await refusal(guard, 'http://[::ffff:7f00:1]/')).to.contain('[::ffff:7f00:1]: it is a loopback address');
      expect(await guard.addressesFor(new URL('https://8.8.8.8/r.git'), false)).to.equal(undefined);
    });

    it('reports a name that does not resolve', async () => {
      expect(await refusal(guard, 'https://nowhere.example.test/r.git')).to.equal('could not resolve nowhere.example.test: ENOTFOUND');
    });

    it('returns the checked addresses of a public name, to pin the connection to', async () => {
      const addresses = await guard.addressesFor(new URL('https://public.example.test/r.git'), false);
      expect(addresses!.map((a) => a.address)).to.deep.equal(['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c']);
    });

    it('lets an internal host through whatever it resolves to (SVC_REPO_INTERNAL_HOSTS)', async () => {
      const addresses = await guard.addressesFor(new URL('https://GIT.corp.example.test./r.git'), false);
      expect(addresses).to.deep.equal([{ address: '10.1.2.3', family: 4 }]);
    });

    it('does nothing when off (the configured repo is exempt): no lookup, the system resolves', async () => {
      const off = tableResolver({});
      const exempt = new ConnectGuard({ enabled: false, internalHosts: [], resolve: off });
      expect(await exempt.addressesFor(new URL('http://intranet.example.test/r.git'), false)).to.equal(undefined);
      expect(await exempt.addressesFor(new URL('http://127.0.0.1/r.git'), true)).to.equal(undefined);
      expect(off.asked).to.deep.equal([]);
    });
  });

  describe('pinnedLookup', () => {
    const lookup = pinnedLookup([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800::1', family: 6 },
    ]);
    const call = (options: object) => new Promise<unknown[]>((resolve) => lookup('anything', options as never, (...args: unknown[]) => resolve(args)));

    it('answers only with the checked addresses, honouring all and family', async () => {
      expect(await call({})).to.deep.equal([null, '93.184.215.14', 4]);
      expect(await call({ family: 6 })).to.deep.equal([null, '2606:2800::1', 6]);
      expect(await call({ all: true })).to.deep.equal([
        null,
        [
          { address: '93.184.215.14', family: 4 },
          { address: '2606:2800::1', family: 6 },
        ],
      ]);
      expect(await call({ all: true, family: 'IPv4' })).to.deep.equal([null, [{ address: '93.184.215.14', family: 4 }]]);
    });

    it('fails rather than fall back to DNS when no checked address fits the family', async () => {
      const only4 = pinnedLookup([{ address: '93.184.215.14', family: 4 }]);
      const [err] = await new Promise<unknown[]>((resolve) => only4('x', { family: 6 } as never, (...args: unknown[]) => resolve(args)));
      expect((err as NodeJS.ErrnoException).code).to.equal('ENOTFOUND');
    });
  });

  describe('IsomorphicGitFetcher with the guard on (a per-request repo)', function () {
    this.timeout(30000);
    let server: GitHttpServer;
    let work: string;
    let n = 0;

    before(async () => {
      server = await startGitHttpServer(PROMPT_REPOS);
    });
    after(async () => server.close());
    beforeEach(() => {
      work = mkdtempSync(path.join(tmpdir(), 'svc-guard-'));
      server.requests.length = 0;
    });
    afterEach(() => rmSync(work, { recursive: true, force: true }));

    const request = (url: string): CloneRequest => ({
      url,
      displayUrl: url,
      branch: 'main',
      dir: path.join(work, `c${++n}`),
      timeoutMs: 10000,
      refuseNonPublicRedirects: true,
    });

    async function failure(fetcher: IsomorphicGitFetcher, req: CloneRequest): Promise<GitFetchError> {
      try {
        await fetcher.clone(req);
      } catch (e) {
        expect(e).to.be.instanceOf(GitFetchError);
        return e as GitFetchError;
      }
      throw new Error('clone should have failed');
    }

    it('refuses a name that resolves to loopback before any connection (502 material, not a 400)', async () => {
      const fetcher = new IsomorphicGitFetcher({ resolve: tableResolver({ localhost: ['127.0.0.1'] }) });
      const e = await failure(fetcher, request(`${server.baseUrl}/public.git`));
      expect(e.message).to.equal(
        `Failed to clone ${server.baseUrl}/public.git (branch main): refused to connect to localhost: the name resolves to a loopback address, ` +
          'not a public destination this server may fetch prompts from (an operator can list internal git hosts in SVC_REPO_INTERNAL_HOSTS)',
      );
      expect(server.requests).to.deep.equal([]);
    });

    it('clones from a host listed as internal, connecting to the address its resolver gave', async () => {
      const resolver = tableResolver({ localhost: ['127.0.0.1'] });
      const fetcher = new IsomorphicGitFetcher({ internalHosts: ['localhost'], resolve: resolver });
      expect(await fetcher.clone(request(`${server.baseUrl}/public.git`))).to.equal('cloned');
      expect(resolver.asked.every((name) => name === 'localhost') && resolver.asked.length > 0).to.equal(true);
    });

    it('pins the connection to the checked address: no second lookup can send it elsewhere', async () => {
      // the resolver says 127.0.0.2, where nothing listens; the system would have said 127.0.0.1
      const fetcher = new IsomorphicGitFetcher({ internalHosts: ['localhost'], resolve: tableResolver({ localhost: ['127.0.0.2'] }) });
      const e = await failure(fetcher, request(`${server.baseUrl}/public.git`));
      expect(e.message).to.contain('ECONNREFUSED 127.0.0.2');
      expect(server.requests).to.deep.equal([]);
    });

    it('refuses a redirect to a name that resolves to a private address', async () => {
      const resolver = tableResolver({ localhost: ['127.0.0.1'], 'mirror.example.test': ['192.168.10.5'] });
      const fetcher = new IsomorphicGitFetcher({ internalHosts: ['localhost'], resolve: resolver });
      const e = await failure(fetcher, request(`${server.baseUrl}/redirect-to/mirror.example.test/public.git`));
      expect(e.message).to.contain(
        'refused to connect to mirror.example.test (reached through a redirect): the name resolves to a private address, not a public destination',
      );
      expect(server.requests.map((r) => r.path)).to.deep.equal(['/redirect-to/mirror.example.test/public.git/info/refs']);
    });

    it('still refuses a redirect to a non-public IP literal from an internal host', async () => {
      const fetcher = new IsomorphicGitFetcher({ internalHosts: ['localhost'], resolve: tableResolver({ localhost: ['127.0.0.1'] }) });
      const e = await failure(fetcher, request(`${server.baseUrl}/redirect/public.git`));
      expect(e.message).to.contain('refused to follow a redirect to 127.0.0.1: it is a loopback address');
    });

    it('leaves the configured repo alone (guard off): localhost clones without being listed', async () => {
      const fetcher = new IsomorphicGitFetcher({ resolve: tableResolver({}) });
      expect(await fetcher.clone({ ...request(`${server.baseUrl}/public.git`), refuseNonPublicRedirects: false })).to.equal('cloned');
    });
  });
});
