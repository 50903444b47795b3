/**
 * Upload benchmark (`npm run bench:uploads`), three parts, all measured in one run:
 * 1. In process: ingest of a manifest at the decoded limit (100 files, 256 KiB
 *    decoded, about 341 KiB on the wire) and the `unchanged` fast path, each
 *    including its JSON.parse, as ratios against JSON.parse of the same body.
 * 2. Over HTTP: uploads/s through the real app vs a bare node:http server that
 *    reads and JSON.parses the same body (same cap), both in child processes.
 * 3. Flood: peak RSS of a server child while 16 clients upload max-size
 *    manifests under distinct identifiers (far more than the cache may hold),
 *    against SVC_SOURCES_MAX_BYTES plus the stated overhead; the bare server
 *    takes the same flood, for what node itself costs to read and parse it.
 * `node dist/bench/uploads.js inprocess|http|flood` runs one part.
 * Env: BENCH_SECONDS (default 3), FLOOD_UPLOADS (1200), FLOOD_CONCURRENCY (16), FLOOD_BOUND_MIB (16).
 */
import 'reflect-metadata';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { IngestSource } from '../application/ingest-source.js';
import { MAX_UPLOAD_RAW_BYTES } from '../domain/uploads/upload-limits.js';
import { appParts, buildContainer } from '../infrastructure/composition-root.js';
import { loadConfig } from '../infrastructure/config/config.js';
import { InMemoryIngestedSourceStore } from '../infrastructure/uploads/in-memory-ingested-source-store.js';
import { startServer } from '../interfaces/http/server.js';
import { filesTotalling, manifestOf } from '../test/support/upload-manifests.js';
import { load, printTable, ratio, startRole, type LoadResult } from './support/bench-kit.js';

const TOKEN = 'bench-token-0123456789abcdef';
const PATH = '/api/v1/prompts/sources';
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const MIB = 1024 * 1024;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);

/** A manifest at the decoded limit, as the JSON text a client sends. */
function maxBody(identifier: string, withHash: boolean, seed = 0): string {
  const files = filesTotalling(262144, 100, `s${seed}`);
  return JSON.stringify(manifestOf(identifier, files, withHash));
}

/** Operations per second of `fn`, after a warm-up, over about `ms` milliseconds. */
async function opsPerSecond(fn: (i: number) => unknown, ms = SECONDS * 1000): Promise<number> {
  for (let i = 0; i < 50; i++) await fn(i);
  let n = 0;
  const start = process.hrtime.bigint();
  const until = start + BigInt(ms) * 1_000_000n;
  while (process.hrtime.bigint() < until) {
    for (let k = 0; k < 10; k++) await fn(n++);
  }
  return n / (Number(process.hrtime.bigint() - start) / 1e9);
}

async function inProcess(): Promise<void> {
  // Two sources under two identifiers and a one-entry cache: every call replaces the other, so each is a full ingest.
  const a = maxBody('local:bench-a', true, 1);
  const b = maxBody('local:bench-b', true, 2);
  const plainA = maxBody('local:bench-a', false, 1);
  const plainB = maxBody('local:bench-b', false, 2);
  console.log(`body on the wire: ${a.length} bytes (${(a.length / 1024).toFixed(1)} KiB), 100 files, 262144 bytes decoded\n`);
  const pair = [a, b];
  const plainPair = [plainA, plainB];
  const oneSlot = new IngestSource(new InMemoryIngestedSourceStore({ maxSources: 1, maxBytes: 64 * MIB }));
  const cached = new IngestSource(new InMemoryIngestedSourceStore({ maxSources: 10, maxBytes: 64 * MIB }));
  await cached.execute(JSON.parse(a));

  const parse = await opsPerSecond((i) => JSON.parse(pair[i & 1]));
  const ingestHash = await opsPerSecond((i) => oneSlot.execute(JSON.parse(pair[i & 1])));
  const ingestPlain = await opsPerSecond((i) => oneSlot.execute(JSON.parse(plainPair[i & 1])));
  const unchanged = await opsPerSecond(async () => {
    const out = await cached.execute(JSON.parse(a));
    if (out.status !== 'unchanged') throw new Error('fast path not taken');
  });
  const row = (label: string, ops: number) =>
    console.log(`| ${label} | ${ops.toFixed(0)} | ${(1000 / ops).toFixed(3)} | ${((ops / parse) * 100).toFixed(1)}% | ${(parse / ops).toFixed(2)}x |`);
  console.log('| in process, same body | ops/s | ms/op | throughput vs JSON.parse | cost vs JSON.parse |');
  console.log('|---|---:|---:|---:|---:|');
  row('JSON.parse only (baseline)', parse);
  row('ingest, contentHash sent and verified', ingestHash);
  row('ingest, no contentHash', ingestPlain);
  row('unchanged fast path', unchanged);
  console.log('\ntargets: full ingest costs at most 6x a JSON.parse of its body; the unchanged path at most 2x');
  console.log(`ingest (hash) ${((ingestHash / parse) * 100).toFixed(1)}% of JSON.parse throughput: ${parse / ingestHash <= 6 ? 'PASS' : 'FAIL'}`);
  console.log(`unchanged    ${((unchanged / parse) * 100).toFixed(1)}% of JSON.parse throughput: ${parse / unchanged <= 2 ? 'PASS' : 'FAIL'}\n`);
}

async function serveSvc(): Promise<void> {
  const config = loadConfig({ ...process.env, HOST: '127.0.0.1', PORT: '0', SVC_AUTH_TOKEN: TOKEN, LOG_LEVEL: 'silent', SVC_RATE_LIMIT_ENABLED: 'false' });
  const running = await startServer(appParts(buildContainer(config)));
  console.log(`URL ${running.url}`);
  if (process.env.BENCH_MEMORY_TRACE) {
    setInterval(() => {
      const m = process.memoryUsage();
      const f = (n: number) => (n / MIB).toFixed(0);
      process.stderr.write(
        `mem rss ${f(m.rss)} heapTotal ${f(m.heapTotal)} heapUsed ${f(m.heapUsed)} external ${f(m.external)} arrayBuffers ${f(m.arrayBuffers)}\n`,
      );
    }, 1000).unref();
  }
}

/** The baseline server: reads the body under the same cap and JSON.parses it, nothing else. */
function serveBare(): void {
  const answer = Buffer.from('{"success":true}');
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_UPLOAD_RAW_BYTES) chunks.push(c);
    });
    req.on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length });
      res.end(answer);
    });
  });
  server.listen(0, '127.0.0.1', () => console.log(`URL http://127.0.0.1:${(server.address() as AddressInfo).port}`));
}

async function overHttp(): Promise<void> {
  const svc = await startRole(__filename, 'svc');
  const bare = await startRole(__filename, 'bare');
  try {
    const withHash = maxBody('local:http-a', true, 1);
    const plain = maxBody('local:http-b', false, 2);
    const rows: LoadResult[] = [];
    const opts = (url: string, body: string) => ({ url: `${url}${PATH}`, method: 'POST' as const, headers, body, connections: 8, duration: SECONDS });
    await load('warm-up', opts(svc.url, withHash));
    await load('warm-up', opts(bare.url, withHash));
    rows.push(await load('bare: read + JSON.parse', opts(bare.url, withHash)));
    rows.push(await load('svc: unchanged (same identifier and hash)', opts(svc.url, withHash)));
    rows.push(await load('svc: ingested (no hash: decoded and replaced each time)', opts(svc.url, plain)));
    printTable(rows);
    console.log(`\nsvc unchanged / bare: ${ratio(rows[1], rows[0])}; svc ingested / bare: ${ratio(rows[2], rows[0])}\n`);
  } finally {
    svc.child.kill();
    bare.child.kill();
  }
}

function rssOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)![1]) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

function post(url: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}${PATH}`, { method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end(body);
  });
}

interface FloodResult {
  before: number;
  peak: number;
  after: number;
  perSecond: number;
  statuses: Record<number, number>;
}

/** `uploads` max-size uploads under distinct identifiers, `concurrency` at a time, against a child; its RSS from /proc. */
async function floodChild(url: string, pid: number, uploads: number, concurrency: number): Promise<FloodResult> {
  const template = maxBody('local:flood-XXXXXXXX', false, 3);
  const body = (i: number) => template.replace('local:flood-XXXXXXXX', `local:flood-${String(i).padStart(8, '0')}`);
  for (let i = 0; i < 20; i++) await post(url, body(1_000_000 + i)); // warm-up: JIT, pools
  await new Promise((r) => setTimeout(r, 500));
  const before = rssOf(pid).rss;
  writeFileSync(`/proc/${pid}/clear_refs`, '5'); // resets VmHWM, so the peak is the flood's
  let next = 0;
  const statuses: Record<number, number> = {};
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < uploads) {
        const status = await post(url, body(next++));
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  const perSecond = uploads / ((Date.now() - started) / 1000);
  const after = rssOf(pid);
  return { before, peak: after.peak, after: after.rss, perSecond, statuses };
}

async function flood(): Promise<void> {
  const uploads = Number(process.env.FLOOD_UPLOADS ?? 1200);
  const concurrency = Number(process.env.FLOOD_CONCURRENCY ?? 16);
  const bound = Number(process.env.FLOOD_BOUND_MIB ?? 16) * MIB;
  const mib = (n: number) => `${(n / MIB).toFixed(1)} MiB`;
  const rows: [string, FloodResult][] = [];
  for (const role of ['bare', 'svc']) {
    const child = await startRole(__filename, role, { SVC_SOURCES_MAX: '100000', SVC_SOURCES_MAX_BYTES: String(bound) });
    try {
      rows.push([role, await floodChild(child.url, child.child.pid!, uploads, concurrency)]);
    } finally {
      child.child.kill();
    }
  }
  console.log(
    `flood: ${uploads} uploads of 256 KiB decoded (${mib(uploads * 262144)} offered) under distinct identifiers, ${concurrency} at a time; svc cache bound ${mib(bound)}\n`,
  );
  console.log('| server | uploads/s | RSS before | peak RSS | peak growth | statuses |');
  console.log('|---|---:|---:|---:|---:|---|');
  for (const [role, r] of rows) {
    console.log(`| ${role} | ${r.perSecond.toFixed(0)} | ${mib(r.before)} | ${mib(r.peak)} | ${mib(r.peak - r.before)} | ${JSON.stringify(r.statuses)} |`);
  }
  // Stated overhead beyond the cache bound: 64 MiB of external memory V8 lets pile up before it
  // collects (evicted blocks and request buffers wait for that GC), plus 3 MiB per upload in flight
  // (raw chunks, the body text, the parsed strings, the decoded block, the comparison strings),
  // plus 32 MiB of heap growth and allocator slack.
  const overhead = 64 * MIB + concurrency * 3 * MIB + 32 * MIB;
  const svc = rows[1][1];
  const growth = svc.peak - svc.before;
  console.log(
    `\nsvc peak growth ${mib(growth)} vs cache bound ${mib(bound)} + stated overhead ${mib(overhead)} = ${mib(bound + overhead)}: ` +
      `${growth <= bound + overhead ? 'PASS' : 'FAIL'}; growth beyond the bare server's: ${mib(growth - (rows[0][1].peak - rows[0][1].before))}`,
  );
}

async function main(): Promise<void> {
  const role = process.argv[2];
  if (role === 'svc') return serveSvc();
  if (role === 'bare') return serveBare();
  // `node dist/bench/uploads.js [inprocess|http|flood]` runs one part; no argument runs all three.
  if (!role || role === 'inprocess') await inProcess();
  if (!role || role === 'http') await overHttp();
  if (!role || role === 'flood') await flood();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
