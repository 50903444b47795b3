/**
 * Replicas benchmark (`npm run bench:replicas`): what shared state on Redis
 * costs against the single-process default.
 *
 * 1. SessionStore create / get / update on a real redis-server (Debian's, on
 *    a free loopback port; append-only with fsync every second, and with
 *    fsync on every write) against the file adapter (one file per session,
 *    fsync and rename per write): latency p50/p99 one call at a time, and
 *    throughput with 32 calls in flight.
 * 2. The overhead an AI tool step pays for the shared store: operate's start
 *    and execute (the real use case; model and cluster are in-process fakes
 *    that answer at once) with the Redis session store against the file
 *    store and an in-memory one, rounds interleaved. Target: Redis adds under
 *    1 ms p50 per step on loopback.
 *
 * BENCH_OPS (default 2000) calls per measurement, BENCH_ROUNDS (300) operate rounds.
 */
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SessionStore } from '../domain/ports/session-store.js';
import { SystemClock } from '../infrastructure/clock/system-clock.js';
import { RedisSessionStore } from '../infrastructure/sessions/redis-session-store.js';
import { FileSessionStore } from '../infrastructure/sessions/file-session-store.js';
import { FakeSessionStore } from '../test/fakes/fake-session-store.js';
import { CapturingLogger } from '../test/support/capturing-logger.js';
import { connectRedis } from '../test/support/redis-fixture.js';
import { REDIS_SERVER, RedisServer } from '../test/support/redis-server.js';
import { ms, percentile } from './support/ai-bench-kit.js';
import { operateRound } from './support/operate-bench.js';

const OPS = Number(process.env.BENCH_OPS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 300);
const CONCURRENCY = 32;
const clock = new SystemClock();
/** A session as operate stores one: a plan with a few actions, a diff and the investigation summary (~3 KB of JSON). */
const STATE = {
  intent: 'scale web in namespace x to 5 replicas',
  plan: {
    summary: 'web runs 2 replicas of nginx:1.27; scale it to 5',
    actions: Array.from({ length: 3 }, (_, i) => ({
      type: 'scale',
      target: { kind: 'Deployment', name: `web-${i}`, namespace: 'x' },
      replicas: 5,
      risk: 'low',
      rationale: 'load'.repeat(40),
    })),
  },
  diff: Array.from({ length: 20 }, (_, i) => ({ path: `spec.template.spec.containers[${i}].image`, from: 'nginx:1.27', to: 'nginx:1.28' })),
  findings: 'x'.repeat(1500),
};

interface StoreRow {
  store: string;
  op: string;
  p50: number;
  p99: number;
  opsPerSecond: number;
}

async function sequential(fn: (i: number) => Promise<unknown>, n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    times.push(performance.now() - t0);
  }
  return times;
}

async function concurrent(fn: (i: number) => Promise<unknown>, n: number): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) await fn(next++);
    }),
  );
  return n / ((performance.now() - t0) / 1000);
}

async function measureStore(name: string, store: SessionStore): Promise<StoreRow[]> {
  const rows: StoreRow[] = [];
  const ids: string[] = [];
  const revisions = new Map<string, number>();
  const create = async () => {
    const s = await store.create('operation', STATE);
    ids.push(s.id);
    revisions.set(s.id, s.revision);
  };
  const get = async (i: number) => {
    if (!(await store.get('operation', ids[i % ids.length]!))) throw new Error('session lost');
  };
  const update = async (i: number) => {
    const id = ids[i % ids.length]!;
    const r = await store.update('operation', id, revisions.get(id)!, { ...STATE, step: i });
    if (r.conflict) throw new Error('unexpected conflict');
    revisions.set(id, r.session.revision);
  };
  // warm-up
  for (let i = 0; i < 50; i++) await create();
  for (const [op, fn] of [
    ['create', create],
    ['get', get],
    ['update', update],
  ] as const) {
    const times = await sequential(fn, OPS);
    // concurrent updates need distinct sessions: one per in-flight call at a time
    const rate = op === 'update' ? await concurrent((i) => update(i * 7919), OPS) : await concurrent(fn, OPS);
    rows.push({ store: name, op, p50: percentile(times, 50), p99: percentile(times, 99), opsPerSecond: rate });
  }
  return rows;
}

async function sessionSection(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-bench-replicas-'));
  const rows: StoreRow[] = [];
  try {
    for (const appendfsync of ['everysec', 'always'] as const) {
      const server = await RedisServer.start({ appendfsync });
      const conn = await connectRedis(server.url, 'bench:', new CapturingLogger());
      try {
        rows.push(...(await measureStore(`Redis, appendfsync ${appendfsync}`, new RedisSessionStore(conn, { ttlMs: 3600_000, clock }))));
      } finally {
        await conn.close();
        await server.stop();
      }
    }
    rows.push(
      ...(await measureStore('file (SVC_DATA_DIR, fsync per write)', new FileSessionStore({ dir: path.join(dataDir, 'sessions'), ttlMs: 3600_000, clock }))),
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(
    `\n### SessionStore: ${OPS} calls one at a time (latency) and ${OPS} with ${CONCURRENCY} in flight (throughput), ~${Buffer.byteLength(JSON.stringify(STATE))} B of state\n`,
  );
  console.log('| store | op | p50 ms | p99 ms | ops/s (32 in flight) |\n|---|---|---:|---:|---:|');
  for (const r of rows) console.log(`| ${r.store} | ${r.op} | ${ms(r.p50)} | ${ms(r.p99)} | ${r.opsPerSecond.toFixed(0)} |`);
  const file = (op: string) => rows.find((r) => r.store.startsWith('file') && r.op === op)!;
  const redis = (op: string) => rows.find((r) => r.store === 'Redis, appendfsync everysec' && r.op === op)!;
  console.log(
    '\nRedis (everysec) against the file store, throughput ratio: ' +
      ['create', 'get', 'update'].map((op) => `${op} ${(redis(op).opsPerSecond / file(op).opsPerSecond).toFixed(2)}x`).join(', '),
  );
}

async function stepSection(): Promise<void> {
  const server = await RedisServer.start({ appendfsync: 'everysec' });
  const conn = await connectRedis(server.url, 'bench-op:', new CapturingLogger());
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-bench-replicas-op-'));
  const stores: [string, SessionStore][] = [
    ['in memory (fake)', new FakeSessionStore({ clock })],
    ['file (no REDIS_URL)', new FileSessionStore({ dir: path.join(dataDir, 'sessions'), ttlMs: 3600_000, clock })],
    ['Redis (REDIS_URL, everysec)', new RedisSessionStore(conn, { ttlMs: 3600_000, clock })],
  ];
  const samples = new Map(stores.map(([name]) => [name, { start: [] as number[], execute: [] as number[] }]));
  try {
    for (let round = 0; round < ROUNDS + 30; round++) {
      for (const [name, store] of stores) {
        const { startMs, executeMs } = await operateRound(store, clock);
        if (round < 30) continue; // warm-up
        samples.get(name)!.start.push(startMs);
        samples.get(name)!.execute.push(executeMs);
      }
    }
  } finally {
    await conn.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(`\n### operate steps (model and cluster answer at once), ${ROUNDS} rounds per store, interleaved\n`);
  console.log('| session store | start p50 ms | start p99 ms | execute p50 ms | execute p99 ms |\n|---|---:|---:|---:|---:|');
  for (const [name] of stores) {
    const s = samples.get(name)!;
    console.log(
      `| ${name} | ${ms(percentile(s.start, 50))} | ${ms(percentile(s.start, 99))} | ${ms(percentile(s.execute, 50))} | ${ms(percentile(s.execute, 99))} |`,
    );
  }
  const p50 = (name: string, step: 'start' | 'execute') => percentile(samples.get(name)![step], 50);
  for (const step of ['start', 'execute'] as const) {
    const overMemory = p50('Redis (REDIS_URL, everysec)', step) - p50('in memory (fake)', step);
    const overFile = p50('Redis (REDIS_URL, everysec)', step) - p50('file (no REDIS_URL)', step);
    console.log(`\n${step}: Redis adds ${ms(overMemory)} ms p50 over an in-memory store and ${ms(overFile)} ms over the file store (target: under 1 ms)`);
  }
}

async function main(): Promise<void> {
  const version = /v=(\S+)/.exec(execFileSync(REDIS_SERVER, ['--version'], { encoding: 'utf8' }))?.[1] ?? 'unknown';
  console.log(`Node ${process.version}, ${process.platform}/${process.arch}; redis-server ${version} on 127.0.0.1, a free port, data in a temporary folder`);
  await sessionSection();
  await stepSection();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
