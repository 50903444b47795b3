import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { parseRoleMapping, rolesFor } from '../../domain/auth/role-mapping.js';
import { OidcAuthenticator } from '../../infrastructure/auth/oidc-authenticator.js';
import { parseTokensFile } from '../../infrastructure/auth/tokens-file.js';
import { VerifiedTokenCache } from '../../infrastructure/auth/verified-token-cache.js';
import { loadConfig } from '../../infrastructure/config/config.js';
import { CapturingLogger } from '../support/capturing-logger.js';
import { OidcServer } from '../support/oidc-server.js';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');

describe('identities: role mapping, tokens file, OIDC bounds', () => {
  it('SVC_ROLES maps groups and user:<name> to cumulative roles; * is anyone', () => {
    const m = parseRoleMapping('admin=platform-admins;operator=sre,oncall, user:dave ;viewer=*');
    expect(rolesFor(m, 'erin', [])).to.deep.equal(['viewer']);
    expect(rolesFor(m, 'erin', ['oncall'])).to.deep.equal(['viewer', 'operator']);
    expect(rolesFor(m, 'dave', [])).to.deep.equal(['viewer', 'operator']);
    expect(rolesFor(m, 'x', ['sre', 'platform-admins'])).to.deep.equal(['viewer', 'operator', 'admin']);
    expect(rolesFor(parseRoleMapping('operator=sre'), 'x', ['dev'])).to.deep.equal([]);
    expect(rolesFor(parseRoleMapping('viewer=*'), 'x', [], ['admin'])).to.deep.equal(['viewer', 'operator', 'admin']);
    expect(() => loadConfig({ SVC_ROLES: 'root=x' })).to.throw(/SVC_ROLES.*"root" is not a role/);
    expect(() => loadConfig({ SVC_ROLES: 'admin=' })).to.throw(/SVC_ROLES.*names no group/);
    expect(() => loadConfig({ SVC_ROLES: 'admin' })).to.throw(/SVC_ROLES/);
    expect(() => loadConfig({ SVC_ROLES: 'admin=user:' })).to.throw(/SVC_ROLES.*"user:" without a username/);
  });

  it('attack: a username equal to a role group gets nothing from it; nor does a group spelled user:<name>', () => {
    const m = parseRoleMapping('admin=platform-admins;operator=user:ci');
    expect(rolesFor(m, 'platform-admins', [])).to.deep.equal([]);
    expect(rolesFor(m, 'oidc:platform-admins', [])).to.deep.equal([]);
    expect(rolesFor(m, 'mallory', ['user:ci'])).to.deep.equal([]);
    expect(rolesFor(m, 'ci', [])).to.deep.equal(['viewer', 'operator']);
  });

  it('a tokens file holds digests, names, roles and optional groups; comments and blank lines are skipped', () => {
    const callers = parseTokensFile(
      `# CI and people\n\nci operator ${sha('ci-token')}\nana admin ${sha('ana-token').toUpperCase()} team-a,team-b # lead\n`,
      parseRoleMapping('operator=team-b'),
    );
    expect(callers.get(sha('ci-token'))).to.deep.equal({
      id: 'tokens-file:svc:ci',
      username: 'ci',
      groups: [],
      roles: ['viewer', 'operator'],
      kind: 'tokens-file',
    });
    expect(callers.get(sha('ana-token'))?.groups).to.deep.equal(['team-a', 'team-b']);
    expect(callers.get(sha('ana-token'))?.roles).to.deep.equal(['viewer', 'operator', 'admin']);
  });

  it('a malformed tokens file line is refused naming its number', () => {
    const bad: Array<[string, RegExp]> = [
      [`ok viewer ${sha('a')}\n\nci operator not-a-digest`, /line 3: the third column/],
      [`ci superuser ${sha('a')}`, /line 1: "superuser" is not a role/],
      [`ci viewer`, /line 1: 2 columns/],
      [`ci viewer ${sha('a')}\nci viewer ${sha('b')}`, /line 2: the name ci is used twice/],
      [`a viewer ${sha('a')}\nb viewer ${sha('a')}`, /line 2: the same token digest/],
      [`a viewer ${sha('a')} g1 extra`, /line 1: 5 columns/],
      // groups become Impersonate-Group headers: printable ASCII only
      [`ok viewer ${sha('a')}\nb viewer ${sha('b')} sre,zoë`, /line 2: groups must be at most 100 comma-separated names of printable ASCII/],
      [`b viewer ${sha('b')} sre,\u0001x`, /line 1: groups must be/],
      // admin is SVC_AUTH_TOKEN's caller: a line may not borrow it (nor anonymous, in any case)
      [`admin operator ${sha('a')}`, /line 1: the name admin is reserved/],
      [`ok viewer ${sha('a')}\nAdmin viewer ${sha('b')}`, /line 2: the name Admin is reserved/],
      [`anonymous viewer ${sha('a')}`, /line 1: the name anonymous is reserved/],
    ];
    for (const [text, why] of bad) expect(() => parseTokensFile(text, new Map())).to.throw(why);
  });

  it('a JWT with 10,000 groups is refused, quickly', async () => {
    const idp = await OidcServer.start(['RS256']);
    try {
      const config = loadConfig({ SVC_ROLES: 'viewer=*', ...idp.env() }).auth.oidc!;
      const verifier = new OidcAuthenticator(config, new Map(), new CapturingLogger());
      const token = await idp.token({ groups: Array.from({ length: 10_000 }, (_, i) => `g${i}`) });
      const started = Date.now();
      expect(await verifier.verify(token)).to.deep.equal({ refused: 'claim groups must be at most 1000 group names' });
      expect(Date.now() - started).to.be.below(2000);
      expect(await verifier.verify(await idp.token({ sub: '' }))).to.have.property('refused');
      expect(await verifier.verify(await idp.token({ groups: 'sre' as unknown as string[] }))).to.have.property('refused');
    } finally {
      await idp.close();
    }
  });

  it('OIDC settings: the audience is required, https except on loopback', () => {
    expect(() => loadConfig({ SVC_OIDC_ISSUER: 'https://idp.example' })).to.throw(/SVC_OIDC_AUDIENCE/);
    expect(() => loadConfig({ SVC_OIDC_ISSUER: 'http://idp.example', SVC_OIDC_AUDIENCE: 'svc' })).to.throw(/SVC_OIDC_ISSUER must be an https URL/);
    expect(() => loadConfig({ SVC_OIDC_ISSUER: 'https://idp.example', SVC_OIDC_AUDIENCE: 'svc', SVC_OIDC_JWKS_URL: 'http://10.0.0.1/keys' })).to.throw(
      /SVC_OIDC_JWKS_URL must be an https URL/,
    );
    expect(() => loadConfig({ SVC_OIDC_AUDIENCE: 'svc' })).to.throw(/SVC_OIDC_AUDIENCE needs SVC_OIDC_ISSUER/);
    const c = loadConfig({ SVC_OIDC_ISSUER: 'http://127.0.0.1:5556/dex', SVC_OIDC_AUDIENCE: 'svc', HOST: '0.0.0.0' });
    expect(c.server.authRequired).to.equal(true);
    expect(c.auth.oidc).to.include({ usernameClaim: 'sub', groupsClaim: 'groups', jwksUrl: undefined });
  });

  it('the verified-token cache is bounded by entries and forgets expired tokens', () => {
    const cache = new VerifiedTokenCache(3);
    const entry = (until: number) => ({ caller: { id: 'oidc:https://idp.test:u', username: 'u', groups: [], roles: [], kind: 'oidc' as const }, until });
    for (let i = 0; i < 5; i++) cache.set(`k${i}`, entry(1000));
    expect(cache.size).to.equal(3);
    expect(cache.get('k0', 0)).to.equal(undefined);
    expect(cache.get('k4', 999)).to.not.equal(undefined);
    expect(cache.get('k4', 1000)).to.equal(undefined);
  });
});
