import { expect } from 'chai';
import { generateKeyPair, SignJWT, exportSPKI } from 'jose';
import request from 'supertest';
import { startServer, type RunningServer } from '../../interfaces/http/server.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';
import { OidcServer, TEST_AUDIENCE } from '../support/oidc-server.js';
import { appParts } from '../../infrastructure/composition-root.js';

const ROLES = 'admin=platform-admins;operator=sre;viewer=*';
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

describe('OIDC bearer tokens (jose, against a real key endpoint)', function () {
  this.timeout(20000);
  let idp: OidcServer;
  let t: TestApp;
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const refused = async (token: string, reason: RegExp) => {
    const res = await request(t.app).get('/api/v1/tools').set(bearer(token)).expect(401);
    expect(res.body.error.code).to.equal('UNAUTHORIZED');
    expect(res.body.error.message).to.match(reason);
    expect(res.headers['www-authenticate']).to.match(/^Bearer/);
    expect(JSON.stringify(res.body)).to.not.contain(token);
  };

  beforeEach(async () => {
    idp = await OidcServer.start();
    t = buildTestApp({ SVC_AUTH_TOKEN: undefined, SVC_ROLES: ROLES, ...idp.env() });
  });
  afterEach(() => idp.close());

  for (const alg of ['RS256', 'ES256', 'EdDSA'] as const) {
    it(`accepts a ${alg} token found through the discovery document, as its subject with the mapped roles`, async () => {
      const token = await idp.token({ sub: 'bob', groups: ['sre'] }, alg);
      const res = await request(t.app).post('/api/v1/tools/version').set(bearer(token)).send({}).expect(200);
      expect(res.body.success).to.equal(true);
      const line = t.logger.lines.find((l) => l.msg === 'request' && l.fields?.path === '/api/v1/tools/version');
      expect(line?.fields).to.include({ user: 'oidc:bob', tokenKind: 'oidc' });
      expect(line?.fields?.roles).to.deep.equal(['viewer', 'operator']);
      expect(JSON.stringify(t.logger.lines)).to.not.contain(token);
    });
  }

  it('refuses alg none, HS256 signed with the public key, wrong issuer or audience, expired, not yet valid, unknown kid', async () => {
    const good = await idp.token();
    const [, payload] = good.split('.');
    await refused(`${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`, /Invalid bearer token/);
    const pem = await exportSPKI((await generateKeyPair('RS256', { extractable: true })).publicKey);
    const spki = new TextEncoder().encode(JSON.stringify(idp.publicJwk('RS256')));
    for (const secret of [spki, new TextEncoder().encode(pem)]) {
      const hs = await new SignJWT({ sub: 'mallory', iss: idp.issuer, aud: TEST_AUDIENCE, exp: Math.floor(Date.now() / 1000) + 600 })
        .setProtectedHeader({ alg: 'HS256', kid: idp.publicJwk('RS256').kid })
        .sign(secret);
      await refused(hs, /algorithm not accepted/);
    }
    await refused(await idp.token({ iss: 'https://other.example' }), /wrong iss/);
    await refused(await idp.token({ aud: 'another-client' }), /wrong aud/);
    const now = Math.floor(Date.now() / 1000);
    await refused(await idp.token({ exp: now - 120 }), /expired/);
    await refused(await idp.token({ nbf: now + 600 }), /not yet valid/);
    await refused(await idp.token({}, 'RS256', 'no-such-kid'), /unknown signing key/);
    await refused(await idp.token({ exp: undefined }), /Invalid bearer token/);
    // stray characters a lenient base64url decoder would drop: the same token spelled differently
    await refused(`${good}x`, /malformed token/);
    await refused(`${good}A`, /malformed token|bad signature/);
    // within the 60 s leeway
    await request(t.app)
      .get('/api/v1/tools')
      .set(bearer(await idp.token({ exp: now - 30 })))
      .expect(200);
  });

  it('a rotated key works without a restart; the retired key no longer does', async () => {
    const before = await idp.token();
    await request(t.app).get('/api/v1/tools').set(bearer(before)).expect(200);
    await idp.rotate('RS256');
    const after = await idp.token();
    await request(t.app).get('/api/v1/tools').set(bearer(after)).expect(200);
    // a token never seen before, signed by the retired key: its kid is no longer published
    const stale = await new SignJWT({ sub: 'carol', iss: idp.issuer, aud: TEST_AUDIENCE, exp: Math.floor(Date.now() / 1000) + 60 })
      .setProtectedHeader({ alg: 'RS256', kid: 'rs256-1' })
      .sign((await generateKeyPair('RS256')).privateKey);
    await refused(stale, /unknown signing key/);
  });

  it('caches verified tokens: a second request fetches nothing and verifies nothing', async () => {
    const token = await idp.token();
    await request(t.app).get('/api/v1/tools').set(bearer(token)).expect(200);
    const fetches = idp.jwksFetches;
    await idp.close();
    await request(t.app).get('/api/v1/tools').set(bearer(token)).expect(200);
    expect(idp.jwksFetches).to.equal(fetches);
    idp = await OidcServer.start();
  });

  it('a flood of unknown kids fetches the key set at most once per cool-down', async () => {
    const slow = buildTestApp({ SVC_AUTH_TOKEN: undefined, SVC_ROLES: ROLES, ...idp.env({ SVC_OIDC_JWKS_COOLDOWN_MS: '60000' }) });
    await request(slow.app)
      .get('/api/v1/tools')
      .set(bearer(await idp.token()))
      .expect(200);
    const fetches = idp.jwksFetches;
    for (let i = 0; i < 20; i++) {
      await request(slow.app)
        .get('/api/v1/tools')
        .set(bearer(await idp.token({}, 'RS256', `bogus-${i}`)))
        .expect(401);
    }
    expect(idp.jwksFetches - fetches).to.be.at.most(1);
  });

  for (const mode of ['hang', 'huge'] as const) {
    it(`a key endpoint that ${mode === 'hang' ? 'hangs' : 'answers 5 MB'} is a 401 within a bounded time`, async () => {
      idp.mode = mode;
      const started = Date.now();
      await refused(await idp.token(), /signing keys unavailable/);
      expect(Date.now() - started).to.be.below(5000);
      // the next one fails fast instead of waiting again
      const again = Date.now();
      await refused(await idp.token({ sub: 'x' }), /signing keys unavailable/);
      expect(Date.now() - again).to.be.below(mode === 'hang' ? 1500 : 5000);
    });
  }

  it('garbage, a 15 KiB token and a token with 800 groups are 401 on the real server, never 500', async () => {
    const running: RunningServer = await startServer(appParts(t.container));
    try {
      const big = await idp.token({ groups: Array.from({ length: 800 }, (_, i) => `group-${i}`) });
      expect(big.length).to.be.above(12 * 1024);
      for (const token of ['x'.repeat(15 * 1024), 'a.b.c', '....', big, 'ey.ey.ey', '\u00ff\u00fe']) {
        const res = await fetch(`${running.url}/api/v1/tools`, { headers: { authorization: `Bearer ${token}`.replace(/[^\x20-\xff]/g, '') } });
        expect(res.status, token.slice(0, 20)).to.equal(401);
      }
      for (const header of ['Basic Zm9vOmJhcg==', 'Bearer', 'garbage \u00ff\u00fe', 'Bearer a b c', `Bearer ${'.'.repeat(5000)}`]) {
        const res = await fetch(`${running.url}/api/v1/tools`, { headers: { authorization: header } });
        expect(res.status, header.slice(0, 20)).to.equal(401);
      }
      // past node's default 16 KiB of headers: still the gate's 401 (the server reads up to MAX_HEADER_BYTES)
      expect((await fetch(`${running.url}/api/v1/tools`, { headers: { authorization: `Bearer ${'x'.repeat(17 * 1024)}` } })).status).to.equal(401);
    } finally {
      await running.close();
    }
  });

  it('at the door (issue 42): a token dated 5,000 s ahead is 401; a system: group however spelled is 403 before any work', async () => {
    await refused(await idp.token({ sub: 'bob', groups: ['sre'], iat: Math.floor(Date.now() / 1000) + 5000 }), /token issued in the future/);
    await refused(await idp.token({ sub: 'bob', groups: ['sre\u200b'] }), /claim groups holds invisible or format characters/);
    for (const group of [' system:masters', 'system\uff1amasters', 'system\u200b:masters']) {
      const res = await request(t.app)
        .get('/api/v1/tools')
        .set(bearer(await idp.token({ sub: 'mallory', groups: ['sre', group] })))
        .expect(403);
      expect(res.body.error.code, JSON.stringify(group)).to.equal('FORBIDDEN');
      expect(res.body.error.message).to.match(/the group ".*" is reserved by Kubernetes \(system:\)/);
    }
  });

  it('OIDC and static tokens work side by side', async () => {
    const both = buildTestApp({ SVC_ROLES: ROLES, ...idp.env() });
    await request(both.app).get('/api/v1/tools').set({ Authorization: `Bearer test-bearer-token-0123456789abcdef` }).expect(200);
    await request(both.app)
      .get('/api/v1/tools')
      .set(bearer(await idp.token()))
      .expect(200);
  });
});
