/**
 * Change ledger benchmark (`npm run bench:ledger`):
 * 1. append cost, p50/p99, one at a time, on the JSON-lines file (fsync per
 *    entry) and on Redis (appendfsync everysec and always), each against a
 *    baseline in the same run: the same bytes written and fsynced with
 *    node:fs, or XADDed to the same Redis;
 * 2. a list of 100,000 entries filtered by namespace (a page of 50), against
 *    a plain filter over an array of the same entries' keys;
 * 3. the integrity walk of 100,000 entries, against hashing the same lines.
 * BENCH_APPENDS (default 500), BENCH_ENTRIES (default 100000).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { verifyChain, sealEntry, GENESIS_ANCHOR } from '../domain/ledger/hash-chain.js';
import { entryText } from '../domain/ledger/ledger-text.js';
import type { ChangeLedger } from '../domain/ports/change-ledger.js';
import { SystemClock } from '../infrastructure/clock/system-clock.js';
import { FileChangeLedger, LEDGER_FILE } from '../infrastructure/ledger/file-change-ledger.js';
import { RedisChangeLedger } from '../infrastructure/ledger/redis-change-ledger.js';
import { CapturingLogger } from '../test/support/capturing-logger.js';
import { aChangeRecord } from '../test/support/ledger-records.js';
import { connectRedis } from '../test/support/redis-fixture.js';
import { RedisServer } from '../test/support/redis-server.js';
import { percentile } from './support/ai-bench-kit.js';

const APPENDS = Number(process.env.BENCH_APPENDS ?? 500);
const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 100_000);
const clock = new SystemClock();
const NAMESPACES = 100;

const record = (i: number) =>
  aChangeRecord({ request: `bench change ${i}`, target: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: `ns-${i % NAMESPACES}`, name: `web-${i}` } });

async function timed(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out;
}

const fmt = (ms: number) => ms.toFixed(3);
const row = (cells: (string | number)[]) => console.log(`| ${cells.join(' | ')} |`);

async function appendSection(dir: string): Promise<void> {
  console.log(
    `\n### Append, ${APPENDS} entries one at a time (~${Buffer.byteLength(entryText(sealEntry(record(1), { seq: 1, prevHash: GENESIS_ANCHOR.hash, atMs: 0, random8Hex: '00000000' })))} B each)\n`,
  );
  console.log(
    '| store | svc p50 ms | svc p99 ms | baseline | baseline p50 ms | baseline p99 ms | p50 ratio | target |\n|---|---:|---:|---|---:|---:|---:|---|',
  );
  const line = `${entryText(sealEntry(record(1), { seq: 1, prevHash: GENESIS_ANCHOR.hash, atMs: 0, random8Hex: '00000000' }))}\n`;
  const file = new FileChangeLedger({ dir: path.join(dir, 'append'), clock });
  await file.append(record(0));
  const svc = await timed(APPENDS, (i) => file.append(record(i)));
  await file.close();
  const raw = await open(path.join(dir, 'raw.jsonl'), 'a', 0o600);
  const base = await timed(APPENDS, async () => {
    await raw.write(line);
    await raw.datasync();
  });
  await raw.close();
  const p50 = percentile(svc, 50);
  row([
    'file, fsync per entry',
    fmt(p50),
    fmt(percentile(svc, 99)),
    'node:fs write + fdatasync',
    fmt(percentile(base, 50)),
    fmt(percentile(base, 99)),
    (p50 / percentile(base, 50)).toFixed(2),
    `< 2 ms p50: ${p50 < 2 ? 'met' : 'NOT met'}`,
  ]);
  for (const appendfsync of ['everysec', 'always'] as const) {
    const server = await RedisServer.start({ appendfsync });
    const conn = await connectRedis(server.url, 'bench:', new CapturingLogger());
    try {
      const ledger = new RedisChangeLedger(conn, { clock });
      await ledger.append(record(0));
      const r = await timed(APPENDS, (i) => ledger.append(record(i)));
      const b = await timed(APPENDS, () => conn.client.xadd('bench:raw', '*', 'e', line));
      const rp50 = percentile(r, 50);
      row([
        `Redis, appendfsync ${appendfsync}`,
        fmt(rp50),
        fmt(percentile(r, 99)),
        'XADD of the same bytes',
        fmt(percentile(b, 50)),
        fmt(percentile(b, 99)),
        (rp50 / percentile(b, 50)).toFixed(2),
        `< 2 ms p50: ${rp50 < 2 ? 'met' : 'NOT met'}`,
      ]);
    } finally {
      await conn.close();
      await server.stop();
    }
  }
}

/** 100,000 sealed entries as the file adapter writes them (built in memory: 100,000 fsyncs would only measure the disk). */
function seedLines(): string[] {
  const lines: string[] = [];
  let prev = GENESIS_ANCHOR;
  const t0 = Date.now() - ENTRIES * 1000;
  for (let i = 0; i < ENTRIES; i++) {
    const e = sealEntry(record(i), { seq: prev.seq + 1, prevHash: prev.hash, atMs: t0 + i * 1000, random8Hex: randomBytes(4).toString('hex') });
    lines.push(entryText(e));
    prev = { seq: e.seq, hash: e.hash };
  }
  return lines;
}

async function readSection(name: string, ledger: ChangeLedger, lines: string[]): Promise<void> {
  await ledger.list({}, { limit: 1 }); // opens the file, or catches the replica's index up
  const keys = lines.map((l) => JSON.parse(l) as { seq: number; target: { namespace: string } }).map((e) => ({ seq: e.seq, namespace: e.target.namespace }));
  const listTimes = await timed(50, (i) => ledger.list({ namespace: `ns-${i % NAMESPACES}` }, { limit: 50 }));
  const plain = await timed(50, async (i) => keys.filter((k) => k.namespace === `ns-${i % NAMESPACES}`).slice(-50));
  const t = performance.now();
  const { anchor, records } = await ledger.chain();
  const report = await verifyChain(records, anchor);
  const walk = performance.now() - t;
  const h = performance.now();
  for (const l of lines) createHash('sha256').update(l).digest('hex');
  const hashOnly = performance.now() - h;
  const p50 = percentile(listTimes, 50);
  row([
    name,
    fmt(p50),
    fmt(percentile(listTimes, 99)),
    fmt(percentile(plain, 50)),
    `< 50 ms: ${percentile(listTimes, 99) < 50 ? 'met' : 'NOT met'}`,
    `${walk.toFixed(0)} (${report.ok ? 'ok' : 'BROKEN'}, ${report.entries})`,
    hashOnly.toFixed(0),
  ]);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-bench-ledger-'));
  try {
    await appendSection(dir);
    const lines = seedLines();
    console.log(`\n### ${ENTRIES} entries: list filtered by namespace (1 in ${NAMESPACES} match, a page of 50), and the integrity walk\n`);
    console.log(
      '| store | list p50 ms | list p99 ms | plain array filter p50 ms | target | integrity walk ms | SHA-256 of the lines alone ms |\n|---|---:|---:|---:|---|---:|---:|',
    );
    const fileDir = path.join(dir, 'read');
    rmSync(fileDir, { recursive: true, force: true });
    mkdirSync(fileDir, { recursive: true });
    writeFileSync(path.join(fileDir, LEDGER_FILE), `${lines.join('\n')}\n`);
    const file = new FileChangeLedger({ dir: fileDir, clock });
    await readSection('file', file, lines);
    await file.close();
    const server = await RedisServer.start();
    const conn = await connectRedis(server.url, 'bench:', new CapturingLogger());
    try {
      for (let i = 0; i < lines.length; i += 1000) {
        const p = conn.client.pipeline();
        for (const [j, l] of lines.slice(i, i + 1000).entries()) p.xadd('bench:ledger', `${i + j + 1}-1`, 'e', l);
        await p.exec();
      }
      await readSection('Redis (index caught up once)', new RedisChangeLedger(conn, { clock }), lines);
    } finally {
      await conn.close();
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
