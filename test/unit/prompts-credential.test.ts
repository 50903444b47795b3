import { expect } from 'chai';
import { selectCloneCredential, type CredentialContext } from '../../domain/prompts/clone-credential.js';
import { validateRepoOverride } from '../../domain/prompts/repo-override.js';

const allowedHosts = ['github.com', 'www.github.com'];
const override = (repo: string) => validateRepoOverride({ repo })!;
const select = (ctx: Partial<CredentialContext>) => selectCloneCredential({ allowedHosts, serverToken: 'server-token', ...ctx });

describe('clone credential selection (SPEC.md table)', () => {
  it('header present: the header token, for any host and either scheme, allowlist or not', () => {
    for (const repo of ['https://github.com/o/r', 'https://gitlab.example.com/o/r', 'http://github.com/o/r', 'http://git.internal.example/o/r']) {
      expect(select({ override: override(repo), headerToken: 'hdr' })).to.deep.equal({ kind: 'header', token: 'hdr' });
    }
  });

  it('header absent, https on an allowlisted host: the server token', () => {
    expect(select({ override: override('https://github.com/o/r') })).to.deep.equal({ kind: 'server', token: 'server-token' });
    expect(select({ override: override('https://WWW.GitHub.com./o/r') })).to.deep.equal({ kind: 'server', token: 'server-token' });
  });

  it('header absent, https on a host not allowlisted: none', () => {
    expect(select({ override: override('https://gitlab.example.com/o/r') })).to.deep.equal({ kind: 'none', reason: 'host-not-allowlisted' });
    expect(select({ override: override('https://github.com.evil.example/o/r') })).to.deep.equal({ kind: 'none', reason: 'host-not-allowlisted' });
  });

  it('header absent, http on any host (allowlisted too): none', () => {
    expect(select({ override: override('http://github.com/o/r') })).to.deep.equal({ kind: 'none', reason: 'plain-http' });
    expect(select({ override: override('http://gitlab.example.com/o/r') })).to.deep.equal({ kind: 'none', reason: 'plain-http' });
  });

  it('no repo (configured repo): the server token, never gated, and the header has no effect', () => {
    expect(select({})).to.deep.equal({ kind: 'server', token: 'server-token' });
    expect(select({ headerToken: 'hdr' })).to.deep.equal({ kind: 'server', token: 'server-token' });
  });

  it('without a server token the server cases send nothing', () => {
    expect(select({ serverToken: undefined })).to.deep.equal({ kind: 'none', reason: 'no-server-token' });
    expect(select({ serverToken: undefined, override: override('https://github.com/o/r') })).to.deep.equal({ kind: 'none', reason: 'no-server-token' });
  });
});
