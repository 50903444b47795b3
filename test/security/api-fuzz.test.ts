import { expect } from 'chai';
import { writeSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { MAX_HEADER_BYTES, startServer, type RunningServer } from '../../interfaces/http/server.js';
import { CapturingLogger } from '../support/capturing-logger.js';
import { startGitHttpServer, type GitHttpServer } from '../support/git-http-server.js';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { OpenAiChatServer } from '../support/openai-chat-server.js';
import { PROMPT_REPOS } from '../support/prompt-repos.js';
import { QdrantServer } from '../support/qdrant-server.js';
import { OidcServer } from '../support/oidc-server.js';
import { RecordingTracer } from '../support/recording-tracer.js';
import { buildTestApp } from '../support/test-app.js';
import { appParts } from '../../infrastructure/composition-root.js';

type Json = Record<string, any>;

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const COUNT = Number(process.env.FUZZ_COUNT ?? 1500);
const STATIC_BEARER = 'canary-bearer-Zq81-must-not-leak-000';
const GIT_TOKEN = 'canary-git-Hh27-must-not-leak-111';
const QDRANT_KEY = 'canary-qdrant-Pp55-must-not-leak-222';
const PUBLIC = /^\/(healthz|api\/v1\/openapi|docs)(\/|$|\?)/;

/** mulberry32: the same seed gives the same requests. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
  return { next, int, pick, chance: (p: number) => next() < p };
}
type Rng = ReturnType<typeof prng>;

const ODD_STRINGS = [
  '',
  ' ',
  'a',
  '..',
  '../../etc/passwd',
  '/etc/passwd',
  'a\u0000b',
  '%00',
  '%2e%2e%2f',
  '{{constructor}}',
  '${process.env}',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  'ｎｏｄｅ',
  '\u202e',
  '😀'.repeat(50),
  'null',
  'true',
  '-1',
  '1e309',
  '__proto__',
  'constructor',
  'x'.repeat(10_000),
  'é'.repeat(3000),
];

/** `s` with lone surrogates replaced (they cannot be URL-encoded). */
function wellFormed(s: string): string {
  return s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

function safeEncode(s: string): string {
  return encodeURIComponent(wellFormed(s));
}

function deref(doc: Json, schema: Json | undefined): Json {
  let s = schema ?? {};
  for (let i = 0; i < 10 && s.$ref; i++)
    s =
      s.$ref
        .split('/')
        .slice(1)
        .reduce((o: Json, k: string) => o?.[k], doc) ?? {};
  return s;
}

/** A value for `schema`: mostly valid-looking, often at or past a boundary, sometimes of the wrong type. */
function valueFor(doc: Json, raw: Json | undefined, rng: Rng, depth = 0): unknown {
  const schema = deref(doc, raw);
  if (rng.chance(0.08)) return rng.pick([null, 0, -1, 1.5, true, [], {}, rng.pick(ODD_STRINGS), 2 ** 53, -(2 ** 63)]);
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (alternatives) return valueFor(doc, rng.pick(alternatives), rng, depth);
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((s: Json) => valueFor(doc, { ...deref(doc, s), nullable: false }, rng, depth)));
  if (schema.enum) return rng.chance(0.85) ? rng.pick(schema.enum) : `${rng.pick(schema.enum)}x`;
  const type = Array.isArray(schema.type) ? rng.pick(schema.type) : (schema.type ?? (schema.properties ? 'object' : 'string'));
  switch (type) {
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? -1000;
      const max = schema.maximum ?? 1000;
      return rng.pick([min, max, min - 1, max + 1, Math.floor(min + rng.next() * (max - min)), 0, 1e12, type === 'number' ? 0.5 : 1]);
    }
    case 'boolean':
      return rng.chance(0.9) ? rng.chance(0.5) : 'yes';
    case 'array': {
      if (depth > 3) return [];
      const n = rng.pick([0, 1, 2, schema.maxItems ?? 3, (schema.maxItems ?? 50) + 1]);
      // wide at the top, narrow below: a nested array never multiplies into millions of values
      return Array.from({ length: Math.min(n, depth === 0 ? 120 : 3) }, () => valueFor(doc, schema.items, rng, depth + 1));
    }
    case 'object': {
      if (depth > 3) return {};
      const out: Json = {};
      for (const [k, v] of Object.entries<Json>(schema.properties ?? {})) {
        const required = (schema.required ?? []).includes(k);
        if (required ? rng.chance(0.93) : rng.chance(0.5)) out[k] = valueFor(doc, v, rng, depth + 1);
      }
      if (rng.chance(0.1)) out[rng.pick(['extra', '__proto__', 'constructor', 'x'])] = rng.pick(ODD_STRINGS);
      return out;
    }
    default: {
      const min = schema.minLength ?? 0;
      const max = schema.maxLength ?? 200;
      if (rng.chance(0.3)) return depth <= 1 ? rng.pick(ODD_STRINGS) : rng.pick(ODD_STRINGS).slice(0, 300);
      const len = rng.pick([min, max, max + 1, Math.max(0, min - 1), min + rng.int(Math.max(1, Math.min(max, 400) - min))]);
      const alphabet = rng.pick(['abcdefghijklmnopqrstuvwxyz', 'ABC123-_./', 'é€😀\u0000\n"\\', ' ']);
      return Array.from({ length: Math.min(len, depth <= 1 ? 30_000 : 300) }, () => alphabet[rng.int(alphabet.length)]).join('');
    }
  }
}

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  kind: string;
}

interface Got {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** Over a raw socket: writes the request, reads until the server closes (or 5 s), parses the status line. */
function sendRaw(base: string, s: Sent): Promise<Got> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer in 5 s')));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (e) => (chunks.length ? undefined : reject(e)));
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (!m) return reject(new Error(`no status line: ${text.slice(0, 100)}`));
      const split = text.indexOf('\r\n\r\n');
      resolve({ status: Number(m[1]), headers: {}, text: split === -1 ? '' : text.slice(split + 4) });
    });
    // the whole request, body included: a head announcing a body that never comes is answered by no one
    const body = s.body === undefined ? Buffer.alloc(0) : Buffer.from(s.body);
    const framed = Object.keys(s.headers).some((k) => ['content-length', 'transfer-encoding'].includes(k.toLowerCase()));
    const length = !framed && body.length ? { 'content-length': String(body.length) } : {};
    const head = Object.entries({ host: `${url.hostname}:${url.port}`, connection: 'close', ...length, ...s.headers })
      .map(([k, v]) => `${k}: ${v}`)
      .join('\r\n');
    // written, not ended: a client that half-closes its side loses the answer of a route that takes a moment
    // (node ends such a connection); `connection: close` has the server close it once it has answered
    socket.write(Buffer.concat([Buffer.from(`${s.method} ${s.path} HTTP/1.1\r\n${head}\r\n\r\n`), body]));
  });
}

function send(base: string, s: Sent): Promise<Got> {
  // past the server's header limit (MAX_HEADER_BYTES) it answers 431 at the parser: read that over a raw socket
  const headBytes = s.path.length + Object.entries(s.headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
  if (s.kind === 'huge header' || headBytes > 15 * 1024) return sendRaw(base, s);
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method: s.method, path: s.path, headers: s.headers, timeout: 20_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer in 20 s to ${s.method} ${s.path.slice(0, 200)}`)));
    req.on('error', reject);
    if (s.body !== undefined) req.end(s.body);
    else req.end();
  });
}

for (const mode of ['static token', 'OIDC'] as const) {
  // with OIDC, the canary bearer is a signed JWT from a real key endpoint, and fewer requests are sent (the same generator)
  const count = mode === 'OIDC' ? Number(process.env.FUZZ_COUNT_OIDC ?? 500) : COUNT;
  describe(`security (${mode}): the whole API fuzzed from its own OpenAPI document, with canary credentials`, function () {
    this.timeout(300_000);
    let running: RunningServer;
    let qdrant: QdrantServer;
    let chat: OpenAiChatServer;
    let kube: KubeApiServer;
    let git: GitHttpServer;
    const logger = new CapturingLogger();
    const tracer = new RecordingTracer();
    let idp: OidcServer | undefined;
    let bearer = STATIC_BEARER;

    before(async () => {
      qdrant = await new QdrantServer({ apiKey: QDRANT_KEY }).start();
      chat = await OpenAiChatServer.start();
      kube = await KubeApiServer.start();
      git = await startGitHttpServer(PROMPT_REPOS, GIT_TOKEN);
      if (mode === 'OIDC') {
        idp = await OidcServer.start(['ES256']);
        bearer = await idp.token({ sub: 'fuzzer', groups: ['fuzzers'] }, 'ES256');
      } else bearer = STATIC_BEARER;
      const { container } = buildTestApp(
        {
          ...(mode === 'OIDC' ? { SVC_AUTH_TOKEN: undefined, SVC_ROLES: 'admin=fuzzers', ...idp!.env() } : { SVC_AUTH_TOKEN: STATIC_BEARER }),
          SVC_GIT_TOKEN: GIT_TOKEN,
          QDRANT_URL: qdrant.url,
          QDRANT_API_KEY: QDRANT_KEY,
          OPENAI_API_KEY: chat.apiKey,
          OPENAI_BASE_URL: chat.baseUrl,
          SVC_LLM_MODEL: 'gpt-test',
          SVC_LLM_MAX_RETRIES: '0',
          KUBECONFIG: kube.writeKubeconfig(),
          SVC_ALLOWED_REPO_HOSTS: 'localhost',
          SVC_REPO_INTERNAL_HOSTS: 'localhost',
          SVC_RATE_LIMIT_ENABLED: 'false',
          LOG_LEVEL: 'debug',
        },
        { logger, tracer },
      );
      running = await startServer(appParts(container));
    });
    after(async () => {
      await running?.close();
      await qdrant?.stop();
      await chat?.close();
      await kube?.close();
      await git?.close();
      await idp?.close();
    });

    it(`sends ${count} seeded requests (seed ${SEED}): no undocumented 5xx, no stack, no unauthenticated access, no credential anywhere`, async () => {
      const rng = prng(SEED);
      const doc = JSON.parse((await send(running.url, { method: 'GET', path: '/api/v1/openapi', headers: {}, kind: 'spec' })).text) as Json;
      const operations: { path: string; method: string; op: Json }[] = [];
      for (const [p, item] of Object.entries<Json>(doc.paths))
        for (const [m, op] of Object.entries<Json>(item))
          if (['get', 'post', 'put', 'delete', 'patch'].includes(m)) operations.push({ path: p, method: m.toUpperCase(), op });
      expect(operations.length).to.be.greaterThan(15);
      const secrets = [bearer, GIT_TOKEN, QDRANT_KEY, chat.apiKey, kube.token];
      const spellings = secrets.flatMap((s) => [
        s,
        encodeURIComponent(s),
        Buffer.from(s).toString('base64'),
        Buffer.from(`x-access-token:${s}`).toString('base64'),
      ]);
      const repos = [
        `${git.baseUrl}/public.git`,
        `${git.baseUrl}/private.git`,
        `${git.baseUrl}/nope.git`,
        'http://127.0.0.1/x.git',
        'http://10.0.0.1/x.git',
        'file:///etc/passwd',
        'ftp://localhost/x',
        'not a url',
        `http://user:${GIT_TOKEN}@localhost:${git.port}/echo-auth/x.git`,
        `${git.baseUrl}/echo-auth/x.git`,
      ];
      const statuses: Record<string, number> = {};
      const kinds: Record<string, number> = {};
      const problems: string[] = [];
      const authHeader = { authorization: `Bearer ${bearer}` };

      const build = (): Sent => {
        const { path: template, method, op } = rng.pick(operations);
        const query = new URLSearchParams();
        const headers: Record<string, string> = { ...authHeader };
        let path = template;
        for (const raw of op.parameters ?? []) {
          const param = deref(doc, raw);
          let value: unknown;
          if (param.name === 'repo') value = rng.pick(repos);
          else if (param.name === 'X-Svc-Git-Token') value = rng.chance(0.5) ? GIT_TOKEN : 'wrong-token';
          else value = valueFor(doc, param.schema, rng);
          if (param.in === 'path')
            path = path.replace(
              `{${param.name}}`,
              safeEncode(typeof value === 'string' && value ? value : rng.pick(['node-pressure', 'missing', 'ｎｏｄｅ', '..', '%2e%2e'])),
            );
          else if (param.in === 'query' && (param.required || rng.chance(0.5)))
            query.set(param.name, wellFormed(typeof value === 'string' ? value : (JSON.stringify(value) ?? '')));
          else if (param.in === 'header' && rng.chance(0.5))
            headers[param.name] = String(value)
              .replace(/[^\x20-\x7e]/g, '?')
              .slice(0, 4000);
        }
        const qs = query.toString();
        let full = qs ? `${path}?${qs}` : path;
        const bodySchema = op.requestBody?.content?.['application/json']?.schema;
        let body: string | Buffer | undefined = method === 'GET' ? undefined : JSON.stringify(valueFor(doc, bodySchema ?? { type: 'object' }, rng));
        if (body !== undefined) headers['content-type'] = 'application/json';
        let kind = 'schema values';
        const r = rng.next();
        if (r < 0.08) {
          kind = 'no bearer';
          delete headers.authorization;
        } else if (r < 0.14) {
          kind = 'wrong bearer';
          headers.authorization = rng.pick([
            `Bearer ${bearer}x`,
            `Bearer ${bearer.slice(0, -1)}`,
            'Bearer ',
            `Basic ${Buffer.from(`u:${bearer}`).toString('base64')}`,
            `bearer  ${bearer} extra`,
            bearer,
          ]);
        } else if (r < 0.22 && method !== 'GET') {
          kind = 'malformed JSON';
          body = rng.pick([
            '{"a":',
            '{',
            '[1,2',
            '{"a":1}}',
            'nul',
            '\u0000',
            '{"__proto__":{"x":1}}',
            '"just a string"',
            '1e999999',
            '{"a":"\\ud800"}',
            '[]'.repeat(5000),
            `${'['.repeat(5000)}${']'.repeat(5000)}`,
          ]);
        } else if (r < 0.3 && method !== 'GET') {
          kind = 'wrong content type';
          headers['content-type'] = rng.pick([
            'text/plain',
            'application/xml',
            'multipart/form-data; boundary=x',
            'application/x-www-form-urlencoded',
            'application/json; charset=utf-16',
            'application/octet-stream',
            '',
          ]);
          if (!headers['content-type']) delete headers['content-type'];
        } else if (r < 0.35) {
          kind = 'huge header';
          headers['x-filler'] = 'h'.repeat(MAX_HEADER_BYTES + 1024 + rng.int(8 * 1024));
          // node answers 431 at the parser; a body still being written would only race the close
          body = undefined;
        } else if (r < 0.47) {
          kind = 'path trick';
          full = rng.pick([
            `/api/v1/../api/v1/tools`,
            `/api/v1/tools/../../healthz`,
            `/healthz/../api/v1/tools`,
            `/api/v1/openapi/../tools`,
            `/docs/../api/v1/tools`,
            `/docs/%2e%2e/api/v1/tools`,
            `/api/v1/tools%2fversion`,
            `/api/v1/tools/%2e%2e%2fversion`,
            `//api//v1//tools`,
            `/api/v1/tools/`,
            `/API/V1/TOOLS`,
            `/api/v1/tools/version/`,
            `/api/v1/tools/version%00`,
            `/api/v1/prompts/%252e%252e%252fetc%252fpasswd`,
            `/api/v1/prompts/..%2f..%2fpackage.json`,
            `/api/v1/prompts/%C0%AE%C0%AE`,
            `/api/v1/prompts/ｎｏｄｅ-pressure`,
            `/api/v1/prompts/${'a'.repeat(5000)}`,
            `/healthz?${'x=1&'.repeat(2000)}`,
            `/api/v1/tools?category=${'%'.repeat(3)}`,
            `/api/v1/prompts?repo=%ZZ`,
            `/api/v1/tools\\..\\healthz`,
            `/api/v1/tools;/version`,
            `/api/v1/./tools`,
            `http://evil.example/api/v1/tools`,
            `*`,
          ]);
          if (rng.chance(0.4)) delete headers.authorization;
        }
        return { method, path: full, headers, body, kind };
      };

      const check = (s: Sent, g: Got) => {
        const where = `${s.kind} ${s.method} ${s.path.slice(0, 120)} -> ${g.status}: ${g.text.slice(0, 300)}`;
        statuses[g.status] = (statuses[g.status] ?? 0) + 1;
        let body: Json | undefined;
        try {
          body = JSON.parse(g.text) as Json;
        } catch {
          body = undefined;
        }
        if (g.status >= 500) {
          const code = body?.error?.code;
          const documented =
            (g.status === 500 && code === 'EXECUTION_ERROR') ||
            (g.status === 502 && ['DEPENDENCY_ERROR', 'PROMPTS_SOURCE_ERROR'].includes(code)) ||
            (g.status === 503 && s.path.startsWith('/readyz'));
          if (!documented) problems.push(`undocumented ${g.status}: ${where}`);
        }
        if (/\n\s+at |\bat [\w.$<>]+ \(|\/work\/|\bdist\/|node_modules|\w\.(ts|js):\d+/.test(g.text)) problems.push(`stack or path in body: ${where}`);
        const presented = s.headers.authorization === `Bearer ${bearer}`;
        const publicPath = PUBLIC.test(s.path) && !/\.\.|%2e/i.test(s.path);
        // public prefixes may answer 404 for what they do not hold; node's parser answers 400/431 before any route
        const refusedEarly = g.status === 431 || (g.status === 400 && !s.path.startsWith('/')) || (g.status === 404 && PUBLIC.test(s.path));
        if (!presented && !publicPath && g.status !== 401 && !refusedEarly) problems.push(`unauthenticated request not refused: ${where}`);
        if (!presented && g.status === 200 && !publicPath) problems.push(`unauthenticated 200: ${where}`);
        const everything = g.text + JSON.stringify(g.headers);
        for (const sp of spellings) if (everything.includes(sp)) problems.push(`credential leaked in response: ${where}`);
      };

      const started = Date.now();
      for (let i = 0; i < count; i++) {
        if (process.env.FUZZ_DEBUG) writeSync(1, `build ${i}\n`);
        const s = build();
        if (process.env.FUZZ_DEBUG) writeSync(1, `built ${s.kind} ${s.method} ${s.path.slice(0, 80)} ${String(s.body ?? '').length}\n`);
        kinds[s.kind] = (kinds[s.kind] ?? 0) + 1;
        let g: Got;
        const t0 = Date.now();
        try {
          g = await send(running.url, s);
          if (process.env.FUZZ_DEBUG && Date.now() - t0 > 300)
            writeSync(
              1,
              `slow ${Date.now() - t0} ms: ${s.kind} ${s.method} ${s.path.slice(0, 100)} ${String(s.body ?? '').slice(0, 200)} -> ${g.status} ${g.text.slice(0, 200)}\n`,
            );
        } catch (e) {
          // node may reset a connection after answering 431/400 at the parser: still a refusal
          if (s.kind === 'huge header' || s.kind === 'path trick') {
            statuses.reset = (statuses.reset ?? 0) + 1;
            continue;
          }
          problems.push(`transport error (${(e as Error).message}): ${JSON.stringify({ ...s, body: String(s.body ?? '').slice(0, 300) }).slice(0, 1500)}`);
          continue;
        }
        check(s, g);
        if (process.env.FUZZ_DEBUG) writeSync(1, `checked ${g.status}\n`);
        if (s.kind === 'huge header' && g.status !== 431 && !(g.status === 401 && !s.headers.authorization)) problems.push(`huge header answered ${g.status}`);
      }
      const logs = logger.text();
      const spans = JSON.stringify(tracer.spans);
      let leaks = 0;
      for (const sp of spellings) {
        if (logs.includes(sp)) (leaks++, problems.push(`credential in a log line: ${sp.slice(0, 10)}...`));
        if (spans.includes(sp)) (leaks++, problems.push(`credential in a span: ${sp.slice(0, 10)}...`));
      }
      leaks += problems.filter((p) => p.startsWith('credential leaked')).length;
      process.stdout.write(
        `\nsecurity fuzz figures (seed ${SEED}): ${count} requests in ${Date.now() - started} ms over ${operations.length} operations\n` +
          `  inputs   ${JSON.stringify(kinds)}\n  statuses ${JSON.stringify(statuses)}\n` +
          `  log text checked ${logs.length} chars, spans checked ${tracer.spans.length}\n  problems ${problems.length}, leaks found ${leaks}\n\n`,
      );
      expect(problems.slice(0, 20)).to.deep.equal([]);
    });
  });
}
