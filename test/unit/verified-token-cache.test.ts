import { expect } from 'chai';
import { createHash } from 'node:crypto';
import type { Authentication } from '../../domain/ports/authenticator.js';
import { createAuthenticator, type AuthenticatorParts } from '../../infrastructure/auth/create-authenticator.js';
import { KEYS_MAX_AGE_MS } from '../../infrastructure/auth/oidc-authenticator.js';
import { VerifiedTokenCache } from '../../infrastructure/auth/verified-token-cache.js';
import { loadConfig } from '../../infrastructure/config/config.js';
import { CapturingLogger } from '../support/capturing-logger.js';
import { OidcServer } from '../support/oidc-server.js';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const caller = (username = 'u') => ({ id: `oidc:https://idp.test:${username}`, username, groups: [], roles: [], kind: 'oidc' as const });

describe('verified-token cache: by digest, until exp, bounded, emptied when the keys change', function () {
  this.timeout(20000);
  let idp: OidcServer;
  let parts: AuthenticatorParts;
  let clock: number;
  const start = (cacheEntries?: number) => {
    const config = loadConfig({ HOST: '127.0.0.1', SVC_ROLES: 'viewer=*', ...idp.env() });
    parts = createAuthenticator(config, new CapturingLogger(), { now: () => clock, ...(cacheEntries ? { cacheEntries } : {}) })!;
    return parts.authenticator;
  };
  const nowS = () => Math.floor(clock / 1000);
  beforeEach(async () => {
    idp = await OidcServer.start(['RS256', 'EdDSA']);
    clock = Date.now();
  });
  afterEach(async () => {
    parts?.stop();
    await idp.close();
  });

  it('a verified token is answered from the cache (synchronously) until its exp and never after; past exp and the leeway it is refused', async () => {
    const authenticator = start();
    const exp = nowS() + 120;
    const token = await idp.token({ sub: 'carol', iat: nowS(), exp });
    const first = authenticator.authenticate(token);
    expect(first).to.be.instanceOf(Promise);
    expect(await first).to.deep.include({ until: exp * 1000 });
    clock += 60_000;
    const cached = authenticator.authenticate(token) as Authentication;
    expect(cached).not.to.be.instanceOf(Promise);
    expect(cached).to.have.nested.property('caller.username', 'oidc:carol');
    // one millisecond past exp the cache no longer answers: the token is verified again (a promise; the leeway still lets it in)
    clock = exp * 1000 + 1;
    const past = authenticator.authenticate(token);
    expect(past).to.be.instanceOf(Promise);
    expect(await past).to.have.property('caller');
    // past exp and the 60 s leeway: refused, and not remembered as valid
    clock = exp * 1000 + 61_000;
    expect(await authenticator.authenticate(token)).to.deep.equal({ refused: 'token expired' });
    expect(authenticator.authenticate(token)).to.be.instanceOf(Promise);
  });

  it('a verdict never outlives the key set it was checked against: after KEYS_MAX_AGE_MS the token is verified again', async () => {
    const authenticator = start();
    const token = await idp.token({ sub: 'erin', iat: nowS(), exp: nowS() + 3 * 3600 });
    const a = (await authenticator.authenticate(token)) as { until: number };
    expect(a.until).to.be.at.most(clock + KEYS_MAX_AGE_MS);
    clock += KEYS_MAX_AGE_MS - 1000;
    expect(authenticator.authenticate(token)).not.to.be.instanceOf(Promise);
    clock += 2000;
    expect(authenticator.authenticate(token)).to.be.instanceOf(Promise);
  });

  it('a token that failed verification is never cached as valid', async () => {
    const authenticator = start();
    const good = await idp.token({ sub: 'frank' });
    const [h, p] = good.split('.');
    const forged = `${h}.${p}.${Buffer.from('not the signature').toString('base64url')}`;
    for (let i = 0; i < 3; i++) {
      const r = authenticator.authenticate(forged);
      expect(r).to.be.instanceOf(Promise);
      expect(await r).to.deep.equal({ refused: 'bad signature' });
    }
  });

  it('a key rotated out of the key set empties the cache: a token signed with the removed key is refused at once', async () => {
    const authenticator = start();
    const old = await idp.token({ sub: 'grace' }, 'RS256');
    expect(await authenticator.authenticate(old)).to.have.nested.property('caller.username', 'oidc:grace');
    expect(authenticator.authenticate(old)).not.to.be.instanceOf(Promise);
    const epoch = authenticator.epoch;
    // the IdP rotates the RS256 key (the old one is gone); a token with the new kid makes svc fetch the set again
    await idp.rotate('RS256');
    expect(await authenticator.authenticate(await idp.token({ sub: 'heidi' }, 'RS256'))).to.have.nested.property('caller.username', 'oidc:heidi');
    expect(authenticator.epoch).not.to.equal(epoch);
    const again = authenticator.authenticate(old);
    expect(again).to.be.instanceOf(Promise);
    expect(await again).to.deep.equal({ refused: 'unknown signing key' });
    // a token of the untouched key verifies as before
    expect(await authenticator.authenticate(await idp.token({ sub: 'ivan' }, 'EdDSA'))).to.have.nested.property('caller.username', 'oidc:ivan');
  });

  it('holds its bound under 10,000 distinct tokens (least recently used out), by entries and by weight', () => {
    const cache = new VerifiedTokenCache(1000);
    for (let i = 0; i < 10_000; i++) {
      cache.set(sha(`token-${i}`), { caller: caller(`user-${i}`), until: Infinity });
      if (i % 10 === 0) cache.get(sha('token-0'), 0); // kept in use: never the least recently used
      expect(cache.size).to.be.at.most(1000);
    }
    expect(cache.get(sha('token-0'), 0)).to.have.nested.property('caller.username', 'user-0');
    expect(cache.get(sha('token-1'), 0)).to.equal(undefined);
    expect(cache.get(sha('token-9999'), 0)).to.have.nested.property('caller.username', 'user-9999');
    // by weight: callers with many long group names take the room of many small ones
    const heavy = new VerifiedTokenCache(10_000, 64 * 1024);
    const groups = Array.from({ length: 100 }, (_, g) => `group-${'x'.repeat(100)}-${g}`);
    for (let i = 0; i < 10_000; i++) heavy.set(sha(`t${i}`), { caller: { ...caller(), groups }, until: Infinity });
    expect(heavy.size).to.be.below(10);
    // the default bound: 10,000 entries
    const full = new VerifiedTokenCache();
    for (let i = 0; i < 12_000; i++) full.set(sha(`d${i}`), { caller: caller(), until: Infinity });
    expect(full.size).to.equal(10_000);
  });

  it('the authenticator keeps its bound too: 300 distinct JWTs through a cache of 100', async () => {
    const authenticator = start(100);
    const tokens = await Promise.all(Array.from({ length: 300 }, (_, i) => idp.token({ sub: `user-${i}` }, 'EdDSA')));
    for (const t of tokens) expect(await authenticator.authenticate(t)).to.have.property('caller');
    expect(authenticator.authenticate(tokens[299])).not.to.be.instanceOf(Promise);
    expect(authenticator.authenticate(tokens[0])).to.be.instanceOf(Promise);
  });
});
