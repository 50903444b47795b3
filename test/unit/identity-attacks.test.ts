import { expect } from 'chai';
import { createHash } from 'node:crypto';
import type { Caller } from '../../domain/auth/caller.js';
import { kubeIdentityOf } from '../../domain/auth/kube-identity.js';
import { hasInvisible, isReservedName, normalisedUsername, samePerson } from '../../domain/auth/person.js';
import { parseRoleMapping } from '../../domain/auth/role-mapping.js';
import { ownerOf, requireOwnerOrAdmin, requireSecondApprover } from '../../domain/auth/session-owner.js';
import { ForbiddenError } from '../../domain/errors.js';
import type { Authentication } from '../../domain/ports/authenticator.js';
import { OidcAuthenticator } from '../../infrastructure/auth/oidc-authenticator.js';
import { parseTokensFile } from '../../infrastructure/auth/tokens-file.js';
import { loadConfig } from '../../infrastructure/config/config.js';
import { CapturingLogger } from '../support/capturing-logger.js';
import { OidcServer } from '../support/oidc-server.js';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const ROLES = parseRoleMapping('admin=platform-admins;operator=sre,user:ci;viewer=*');
const POLICY = { requireSecondApprover: true, protectedNamespaces: [] };
const HIGH = { risks: ['high'], namespaces: ['prod'] };
const callerOf = (a: Authentication): Caller => {
  if (!('caller' in a)) throw new Error(`refused: ${a.refused}`);
  return a.caller;
};

describe('identity attacks (issue 31 items 1-3): a caller is an identity, not a name', function () {
  this.timeout(20000);
  let idp: OidcServer;
  let oidc: OidcAuthenticator;
  const file = parseTokensFile(`bob operator ${sha('bob-token')}\nci operator ${sha('ci-token')}\nalice operator ${sha('alice-token')}`, ROLES);
  const fileCaller = (token: string) => file.get(sha(token))!;

  before(async () => {
    idp = await OidcServer.start(['RS256']);
  });
  after(() => idp.close());
  const verifier = (env: Record<string, string> = {}) =>
    new OidcAuthenticator(loadConfig({ HOST: '127.0.0.1', ...idp.env(env) }).auth.oidc!, ROLES, new CapturingLogger());
  beforeEach(() => {
    oidc = verifier();
  });

  it('the same name from two kinds of token: two identities, two usernames, two Kubernetes users; neither owns the other’s session', async () => {
    const oidcBob = callerOf(await oidc.verify(await idp.token({ sub: 'bob', groups: ['sre'] })));
    const tokensBob = fileCaller('bob-token');
    expect(oidcBob).to.deep.include({ id: `oidc:${idp.issuer}:bob`, username: 'oidc:bob', kind: 'oidc' });
    expect(tokensBob).to.deep.include({ id: 'tokens-file:svc:bob', username: 'bob' });
    expect(() => requireOwnerOrAdmin(ownerOf(tokensBob), oidcBob, 'opr_x')).to.throw(ForbiddenError, /started by bob \(tokens-file\)/);
    expect(() => requireOwnerOrAdmin(ownerOf(oidcBob), tokensBob, 'opr_x')).to.throw(ForbiddenError);
    // OIDC svc:ci is not impersonated as the tokens-file ci (svc:ci)
    const oidcCi = callerOf(await oidc.verify(await idp.token({ sub: 'svc:ci', groups: ['sre'] })));
    expect(kubeIdentityOf(oidcCi)!.user).to.equal('oidc:svc:ci');
    expect(kubeIdentityOf(fileCaller('ci-token'))!.user).to.equal('svc:ci');
    // the prefix is configurable (a word and a colon), never empty nor system:
    const dex = callerOf(await verifier({ SVC_OIDC_USERNAME_PREFIX: 'dex:' }).verify(await idp.token({ sub: 'ci' })));
    expect(dex.username).to.equal('dex:ci');
    for (const bad of ['oidc', 'system:', 'a b:', 'x:y:'])
      expect(() => loadConfig({ HOST: '127.0.0.1', ...idp.env({ SVC_OIDC_USERNAME_PREFIX: bad }) })).to.throw(/SVC_OIDC_USERNAME_PREFIX/);
  });

  it('a token whose subject is a role group (sub: platform-admins, no groups) gets no role from it; user:ci in SVC_ROLES is only the tokens-file ci', async () => {
    const posing = callerOf(await oidc.verify(await idp.token({ sub: 'platform-admins' })));
    expect(posing.roles).to.deep.equal(['viewer']);
    const oidcCi = callerOf(await oidc.verify(await idp.token({ sub: 'ci' })));
    expect(oidcCi.roles).to.deep.equal(['viewer']);
    const groupCi = callerOf(await oidc.verify(await idp.token({ sub: 'mallory', groups: ['user:ci'] })));
    expect(groupCi.roles).to.deep.equal(['viewer']);
  });

  it('invisible and format characters in a username are refused (alice\\u200b, a bidi override, a Hangul filler)', async () => {
    for (const sub of ['alice\u200b', 'al\u202eice', 'alice\u3164', '\u2060alice', 'alice\ufe0f']) {
      const verdict = await oidc.verify(await idp.token({ sub }));
      expect(verdict, JSON.stringify(sub)).to.deep.equal({ refused: 'claim sub holds invisible or format characters' });
    }
    expect(hasInvisible('alice')).to.equal(false);
    expect(hasInvisible('zoë')).to.equal(false);
  });

  it('with an email username claim, email_verified must be true', async () => {
    const byEmail = verifier({ SVC_OIDC_USERNAME_CLAIM: 'email' });
    for (const verified of [false, 'true', undefined]) {
      const token = await idp.token({ sub: 'u1', email: 'alice@example.com', ...(verified === undefined ? {} : { email_verified: verified }) });
      expect(await byEmail.verify(token), String(verified)).to.deep.equal({ refused: 'claim email_verified is not true' });
    }
    const ok = callerOf(await byEmail.verify(await idp.token({ sub: 'u1', email: 'alice@example.com', email_verified: true })));
    expect(ok).to.deep.include({ username: 'oidc:alice@example.com', id: `oidc:${idp.issuer}:u1` });
  });

  it('a reserved (system:) username or group is a forbidden refusal (403 at the gate), never a caller; a tokens-file line cannot name one', async () => {
    expect(() => parseTokensFile(`ops operator ${sha('ops')} sre,system:masters`, ROLES)).to.throw(/line 1: the group system:masters is reserved/);
    for (const claims of [{ sub: 'system:admin' }, { sub: 'mallory', groups: ['sre', 'system:masters'] }, { sub: 'm', groups: ['SYSTEM:nodes'] }]) {
      const verdict = await oidc.verify(await idp.token(claims));
      expect(verdict, JSON.stringify(claims)).to.deep.include({ forbidden: true });
      expect((verdict as { refused: string }).refused).to.match(/is reserved by Kubernetes \(system:\)/);
    }
  });

  it('a reserved name however spelled: a leading blank, a full-width colon, a zero-width space, full-width letters, in a group or the username (issue 42)', async () => {
    const spellings = [
      ' system:masters',
      'system\uff1amasters',
      'system\u200b:masters',
      '\uff53\uff59\uff53\uff54\uff45\uff4d:masters',
      'system:masters ',
      'System\ufe55masters',
    ];
    for (const group of spellings) {
      const verdict = await oidc.verify(await idp.token({ sub: 'mallory', groups: ['sre', group] }));
      expect(verdict, JSON.stringify(group)).to.deep.include({ forbidden: true });
      expect((verdict as { refused: string }).refused).to.match(/^the group ".*" is reserved by Kubernetes \(system:\)$/);
    }
    for (const sub of ['system\uff1aadmin', ' system:admin', 'system\u2060:admin']) {
      const verdict = await oidc.verify(await idp.token({ sub, groups: ['sre'] }));
      expect(verdict, JSON.stringify(sub)).to.deep.include({ forbidden: true });
      expect((verdict as { refused: string }).refused).to.match(/^the username ".*" is reserved by Kubernetes/);
    }
    // the tokens file and impersonation read names the same way
    expect(() => parseTokensFile(`ops operator ${sha('ops')} sre,SYSTEM:masters`, ROLES)).to.throw(/the group SYSTEM:masters is reserved/);
    expect(isReservedName('systemic:masters')).to.equal(false);
    expect(isReservedName('sre')).to.equal(false);
  });

  it('a group gets the character rules of a username: invisible, format and control characters are refused (401), look-alikes are not two groups', async () => {
    for (const group of ['sre\u200b', 'platform\u2011admins\u202e', 'sre\u3164', 'oncall\n', 'sre\u0000']) {
      const verdict = await oidc.verify(await idp.token({ sub: 'mallory', groups: [group] }));
      expect(verdict, JSON.stringify(group)).to.deep.equal({ refused: 'claim groups holds invisible or format characters' });
    }
    // a name people read as one stays a name: accents, other scripts
    expect(callerOf(await oidc.verify(await idp.token({ sub: 'zoë', groups: ['équipe', 'команда'] }))).groups).to.deep.equal(['équipe', 'команда']);
  });

  it('a token issued later than now plus the 60 s leeway is refused; within the leeway it passes', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect(await oidc.verify(await idp.token({ sub: 'bob', iat: now + 5000 }))).to.deep.equal({ refused: 'token issued in the future' });
    expect(await oidc.verify(await idp.token({ sub: 'bob', iat: now + 61 + 5 }))).to.deep.equal({ refused: 'token issued in the future' });
    expect(callerOf(await oidc.verify(await idp.token({ sub: 'bob', iat: now + 30 })))).to.include({ username: 'oidc:bob' });
  });

  it('the second approver is another person: not the same identity, nor the same normalised name under another token', async () => {
    const fileAlice = fileCaller('alice-token');
    const oidcAlice = callerOf(await oidc.verify(await idp.token({ sub: 'Alice', groups: ['sre'] })));
    const wide = callerOf(await oidc.verify(await idp.token({ sub: 'ａｌｉｃｅ', groups: ['sre'] })));
    const oidcBob = callerOf(await oidc.verify(await idp.token({ sub: 'bob', groups: ['sre'] })));
    for (const same of [fileAlice, oidcAlice, wide]) {
      expect(samePerson(ownerOf(fileAlice), same)).to.equal(true);
      expect(() => requireSecondApprover(POLICY, ownerOf(fileAlice), same, 'rem_x', HIGH)).to.throw(ForbiddenError, /needs a second approver/);
    }
    expect(() => requireSecondApprover(POLICY, ownerOf(fileAlice), oidcBob, 'rem_x', HIGH)).to.not.throw();
    // a name stored with an invisible character (before they were refused) is still alice
    expect(samePerson({ username: 'alice\u200b', kind: 'tokens-file' }, fileAlice)).to.equal(true);
    expect(normalisedUsername('oidc:Straße', 'oidc')).to.equal(normalisedUsername('STRASSE'));
  });
});
