import { expect } from 'chai';
import net from 'node:net';
import { MAX_HEADER_BYTES, startServer, type RunningServer } from '../../interfaces/http/server.js';
import { OidcServer } from '../support/oidc-server.js';
import { auth, buildTestApp } from '../support/test-app.js';
import { appParts } from '../../infrastructure/composition-root.js';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
});
const surfaces = {
  REST: { method: 'GET', path: '/api/v1/tools', body: undefined },
  MCP: { method: 'POST', path: '/mcp', body: INITIALIZE },
} as const;

/** One request over a raw socket (so nothing in the client limits the header): the status line's code and the body, or why there was none. */
function send(url: string, s: (typeof surfaces)[keyof typeof surfaces], headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer within 5 s')));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (!m) return reject(new Error(`no status line: ${JSON.stringify(text.slice(0, 80))}`));
      resolve({ status: Number(m[1]), body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
    const all = {
      host: `${hostname}:${port}`,
      connection: 'close',
      accept: 'application/json, text/event-stream',
      ...(s.body ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(s.body)) } : {}),
      ...headers,
    };
    const head = Object.entries(all)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\r\n');
    socket.end(`${s.method} ${s.path} HTTP/1.1\r\n${head}\r\n\r\n${s.body ?? ''}`);
  });
}

describe('oversized tokens and headers (issue 20: a 16 KiB token is a 401 in bounded time, never a 500)', function () {
  this.timeout(20000);
  let idp: OidcServer;
  let running: RunningServer;
  beforeEach(async () => {
    idp = await OidcServer.start(['RS256']);
    running = await startServer(appParts(buildTestApp({ SVC_ROLES: 'viewer=*', ...idp.env() }).container));
  });
  afterEach(async () => {
    await running.close();
    await idp.close();
  });

  for (const [surface, s] of Object.entries(surfaces)) {
    it(`${surface}: a 16 KiB token and a 28 KiB one are 401 "token too long", refused unread; the right token still passes`, async () => {
      for (const kib of [16, 28]) {
        // shaped like a JWT, so only the length bound can refuse it without asking the key endpoint
        const token = `eyJhbGciOiJSUzI1NiJ9.${'a'.repeat(kib * 1024 - 40)}.sig`;
        const began = Date.now();
        const res = await send(running.url, s, { authorization: `Bearer ${token}` });
        expect(res.status, `${kib} KiB`).to.equal(401);
        expect(JSON.parse(res.body).error).to.deep.include({ code: 'UNAUTHORIZED', message: 'Invalid bearer token: token too long' });
        expect(res.body).not.to.contain(token.slice(20, 60));
        expect(Date.now() - began).to.be.below(2000);
      }
      expect(idp.jwksFetches).to.equal(0);
      expect((await send(running.url, s, auth)).status).to.be.oneOf([200]);
    });

    it(`${surface}: request headers past ${MAX_HEADER_BYTES / 1024} KiB are node's 431 at the parser (bounded memory), never a 500 or a hang`, async () => {
      const began = Date.now();
      const token = await send(running.url, s, { authorization: `Bearer ${'x'.repeat(MAX_HEADER_BYTES + 1024)}` });
      expect(token.status).to.equal(431);
      const filler = await send(running.url, s, { ...auth, 'x-filler': 'h'.repeat(MAX_HEADER_BYTES) });
      expect(filler.status).to.equal(431);
      expect(Date.now() - began).to.be.below(4000);
      // other headers of a few KiB next to a good token are served as before
      expect((await send(running.url, s, { ...auth, 'x-filler': 'h'.repeat(20 * 1024) })).status).to.equal(200);
    });
  }
});
