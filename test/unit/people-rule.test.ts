import { expect } from 'chai';
import { createHash } from 'node:crypto';
import type { Caller } from '../../domain/auth/caller.js';
import { PeopleDirectory } from '../../domain/auth/people.js';
import { samePerson } from '../../domain/auth/person.js';
import { parseRoleMapping } from '../../domain/auth/role-mapping.js';
import { actsAs, isOwner, ownerOf, requireOwnerOrAdmin, requireSecondApprover } from '../../domain/auth/session-owner.js';
import { ForbiddenError } from '../../domain/errors.js';
import { ledgerCallerOf } from '../../domain/ledger/change-entry.js';
import type { Authentication } from '../../domain/ports/authenticator.js';
import { OidcAuthenticator } from '../../infrastructure/auth/oidc-authenticator.js';
import { parseTokensFile } from '../../infrastructure/auth/tokens-file.js';
import { loadConfig } from '../../infrastructure/config/config.js';
import { CapturingLogger } from '../support/capturing-logger.js';
import { OidcServer } from '../support/oidc-server.js';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const ROLES = parseRoleMapping('operator=sre;viewer=*');
const HIGH = { risks: ['high'], namespaces: ['prod'] };
const callerOf = (a: Authentication): Caller => {
  if (!('caller' in a)) throw new Error(`refused: ${a.refused}`);
  return a.caller;
};

/**
 * One person, several credentials (issue 42): the tokens-file `alice` and
 * the OIDC `alice@example.com` (Dex with SVC_OIDC_USERNAME_CLAIM=email) are
 * two identities; the people file makes them one person for the
 * second-approver rule, revert and session ownership. An address counts only
 * as the identity provider verified it.
 */
describe('the people file across credential kinds (tokens file, OIDC against the JWKS server)', function () {
  this.timeout(20000);
  let idp: OidcServer;
  let people: PeopleDirectory;
  const tokens = `alice operator ${sha('alice-token')} sre\nbob operator ${sha('bob-token')} sre\n`;

  before(async () => {
    idp = await OidcServer.start(['RS256']);
    people = new PeopleDirectory([
      { name: 'alice', tokens: ['alice'], oidc: [], emails: ['alice@example.com'] },
      { name: 'bob', tokens: ['bob'], oidc: [{ issuer: idp.issuer, subject: 'bob-at-dex' }], emails: [] },
    ]);
  });
  after(() => idp.close());
  const oidc = (env: Record<string, string>, dir = people) =>
    new OidcAuthenticator(loadConfig({ HOST: '127.0.0.1', ...idp.env(env) }).auth.oidc!, ROLES, new CapturingLogger(), Date.now, () => undefined, dir);
  const fileCaller = (token: string, dir = people) => parseTokensFile(tokens, ROLES, dir).get(sha(token))!;

  it('tokens-file alice and OIDC alice@example.com are one person: no second approval of her own change, her session and her change are hers under either', async () => {
    const byEmail = oidc({ SVC_OIDC_USERNAME_CLAIM: 'email' });
    const oidcAlice = callerOf(await byEmail.verify(await idp.token({ sub: 'dex-7f3', email: 'alice@example.com', email_verified: true, groups: ['sre'] })));
    const fileAlice = fileCaller('alice-token');
    expect(oidcAlice).to.deep.include({ username: 'oidc:alice@example.com', person: 'alice' });
    expect(fileAlice).to.deep.include({ username: 'alice', person: 'alice' });
    expect(oidcAlice.id).to.not.equal(fileAlice.id);
    const policy = { requireSecondApprover: true, protectedNamespaces: [], people };
    // started as one credential, approved as the other: refused both ways
    expect(() => requireSecondApprover(policy, ownerOf(fileAlice), oidcAlice, 'rem_x', HIGH)).to.throw(ForbiddenError, /needs a second approver/);
    expect(() => requireSecondApprover(policy, ownerOf(oidcAlice), fileAlice, 'rem_x', HIGH)).to.throw(ForbiddenError, /needs a second approver/);
    // the session is hers under either credential; a change she recorded under one she reverts under the other
    expect(() => requireOwnerOrAdmin(ownerOf(fileAlice), oidcAlice, 'opr_x')).to.not.throw();
    expect(isOwner(ownerOf(oidcAlice), fileAlice)).to.equal(true);
    expect(actsAs(ledgerCallerOf(fileAlice), oidcAlice)).to.equal(true);
    // bob, named by his OIDC subject, is another person: he approves, and owns none of hers
    const oidcBob = callerOf(await byEmail.verify(await idp.token({ sub: 'bob-at-dex', email: 'bob@example.com', email_verified: true, groups: ['sre'] })));
    expect(oidcBob.person).to.equal('bob');
    expect(() => requireSecondApprover(policy, ownerOf(fileAlice), oidcBob, 'rem_x', HIGH)).to.not.throw();
    expect(() => requireOwnerOrAdmin(ownerOf(fileAlice), oidcBob, 'opr_x')).to.throw(ForbiddenError, /started by alice \(tokens-file\)/);
    expect(actsAs(ledgerCallerOf(fileAlice), oidcBob)).to.equal(false);
    expect(actsAs(ledgerCallerOf(fileCaller('bob-token')), oidcBob)).to.equal(true);
  });

  it('attack: an address the identity provider did not verify, or a look-alike one, makes nobody alice', async () => {
    const bySub = oidc({});
    const policy = { requireSecondApprover: true, protectedNamespaces: [], people };
    const fileAlice = fileCaller('alice-token');
    for (const claims of [
      { sub: 'mallory', email: 'alice@example.com' },
      { sub: 'mallory', email: 'alice@example.com', email_verified: 'true' },
      { sub: 'mallory', email: '\uff41lice@example.com', email_verified: true },
      { sub: 'mallory', email: 'alice@example.com.evil.test', email_verified: true },
      { sub: 'mallory', email: ['alice@example.com'], email_verified: true },
    ]) {
      const mallory = callerOf(await bySub.verify(await idp.token({ ...claims, groups: ['sre'] })));
      expect(mallory, JSON.stringify(claims)).to.not.have.property('person');
      expect(() => requireOwnerOrAdmin(ownerOf(fileAlice), mallory, 'opr_x'), JSON.stringify(claims)).to.throw(ForbiddenError);
      expect(actsAs(ledgerCallerOf(fileAlice), mallory)).to.equal(false);
      // mallory is no second approver of her own session, and alice is not blocked from approving mallory's
      expect(() => requireSecondApprover(policy, ownerOf(mallory), fileAlice, 'rem_x', HIGH)).to.not.throw();
    }
    // a verified address in another case is the same mailbox: alice
    expect(callerOf(await bySub.verify(await idp.token({ sub: 'dex-7f3', email: 'Alice@Example.COM', email_verified: true }))).person).to.equal('alice');
  });

  it('without a people file they are two people (what docs/identity.md warns of); records made before the file are judged by it where it names their identity', async () => {
    const byEmail = oidc({ SVC_OIDC_USERNAME_CLAIM: 'email' }, new PeopleDirectory());
    const oidcAlice = callerOf(await byEmail.verify(await idp.token({ sub: 'dex-7f3', email: 'alice@example.com', email_verified: true })));
    const fileAlice = fileCaller('alice-token', new PeopleDirectory());
    expect(oidcAlice).to.not.have.property('person');
    expect(samePerson(ownerOf(fileAlice), oidcAlice)).to.equal(false);
    expect(() => requireSecondApprover({ requireSecondApprover: true, protectedNamespaces: [] }, ownerOf(fileAlice), oidcAlice, 'rem_x', HIGH)).to.not.throw();
    // a session alice started before the people file existed (no person recorded): the file names its identity now
    const before = ownerOf(fileAlice);
    const withFile = callerOf(
      await oidc({ SVC_OIDC_USERNAME_CLAIM: 'email' }).verify(await idp.token({ sub: 'dex-7f3', email: 'alice@example.com', email_verified: true })),
    );
    expect(samePerson(before, withFile, people)).to.equal(true);
    expect(() => requireSecondApprover({ requireSecondApprover: true, protectedNamespaces: [], people }, before, withFile, 'rem_x', HIGH)).to.throw(
      ForbiddenError,
    );
    // ownership does not widen on that guess: only a person recorded with the session, or the same identity
    expect(isOwner(before, withFile)).to.equal(false);
  });
});
