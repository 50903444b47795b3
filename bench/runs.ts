/**
 * Runs benchmark (`npm run bench:runs`):
 * 1. the overhead of a run started with `Prefer: respond-async` against the
 *    synchronous call of the same tool, with a tool that answers at once: p50
 *    and p99 of ExecuteTool alone vs StartRun until the run's `done` (store
 *    under SVC_DATA_DIR as by default), the difference being what runs add
 *    (target: under 1 ms at p50);
 * 2. events per second delivered to 100 open event streams of one run (HTTP,
 *    the real server), each stream receiving every event;
 * 3. memory per idle open stream (heap and RSS, clients in this process too,
 *    so an upper bound for the server side). Run with --expose-gc.
 * BENCH_RUNS sets the measured runs (default 2000), BENCH_STREAMS the streams (100).
 */
import 'reflect-metadata';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { STATIC_TOKEN_CALLER } from '../domain/auth/caller.js';
import type { ToolHandler } from '../application/tool-handler.js';
import { appParts, buildContainer } from '../infrastructure/composition-root.js';
import { loadConfig } from '../infrastructure/config/config.js';
import { TOKENS } from '../infrastructure/tokens.js';
import { startServer } from '../interfaces/http/server.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 2000);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 100);
const EVENTS = 400;
const TOKEN = 'bench-runs-token-0123456789abcdef';

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const gc = () => (globalThis as { gc?: () => void }).gc?.();

let release: () => void = () => undefined;
/** operate answers at once, except while `hold` is set (the streams bench holds one run open). */
let hold = false;
const instant: ToolHandler = {
  execute: () => (hold ? new Promise((resolve) => (release = () => resolve({ status: 'ok' }))) : Promise.resolve({ status: 'ok' })),
};

async function main() {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-bench-runs-'));
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    SVC_AUTH_TOKEN: TOKEN,
    LOG_LEVEL: 'silent',
    SVC_DATA_DIR: dir,
    SVC_RATE_LIMIT_ENABLED: 'false',
    SVC_RUNS_MAX_PER_CALLER: '10000',
    SVC_RUNS_MAX_ACTIVE: '10000',
    // every stream is the bench's one caller: room for all of them (the default is 20 per caller)
    SVC_RUN_STREAMS_PER_CALLER: String(Math.max(20, STREAMS)),
  });
  const c = buildContainer(config, { toolHandlers: { operate: instant } });
  const execute = c.resolve(TOKENS.ExecuteTool);
  const start = c.resolve(TOKENS.StartRun);
  const store = c.resolve(TOKENS.RunStore);
  const input = { toolName: 'operate', params: { intent: 'scale web in x to 3' }, requestId: 'bench', caller: STATIC_TOKEN_CALLER };

  /** Resolves at the run's `done` (subscribed first, then the status read, so it cannot be missed). */
  const untilDone = async (runId: string) => {
    let resolve!: () => void;
    const done = new Promise<void>((r) => (resolve = r));
    const stop = await store.subscribe(runId, (s) => s.type === 'event' && s.event.type === 'done' && resolve());
    if ((await store.get(runId))?.status === 'succeeded') resolve();
    await done;
    stop();
  };

  // 1. overhead
  const sync: number[] = [];
  const async: number[] = [];
  for (let i = 0; i < RUNS + 200; i++) {
    let t = performance.now();
    await execute.execute(input);
    if (i >= 200) sync.push(performance.now() - t);
    t = performance.now();
    const run = await start.execute(input);
    await untilDone(run.runId);
    if (i >= 200) async.push(performance.now() - t);
  }
  const fmt = (ms: number) => ms.toFixed(3);
  console.log(`\n1. overhead of a run, ${RUNS} runs of a tool that answers at once (ms)`);
  console.log(`   synchronous ExecuteTool     p50 ${fmt(pct(sync, 50))}  p99 ${fmt(pct(sync, 99))}`);
  console.log(`   run: start .. done          p50 ${fmt(pct(async, 50))}  p99 ${fmt(pct(async, 99))}`);
  console.log(`   overhead                    p50 ${fmt(pct(async, 50) - pct(sync, 50))}  (target < 1 ms)`);

  // 2. and 3. streams
  const server = await startServer(appParts(c));
  hold = true;
  const run = await start.execute(input);
  while ((await store.get(run.runId))?.status !== 'running') await new Promise((r) => setTimeout(r, 5));
  gc();
  const before = process.memoryUsage();
  const agent = new http.Agent({ keepAlive: false, maxSockets: STREAMS * 2 });
  const counts = new Array<number>(STREAMS).fill(0);
  const reqs: http.ClientRequest[] = [];
  await Promise.all(
    counts.map(
      (_, i) =>
        new Promise<void>((resolve, reject) => {
          const req = http.get(`${server.url}/api/v1/runs/${run.runId}/events`, { agent, headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
            // a refused stream (429 past the per-caller limit) would never count an event: stop instead of waiting for it
            if (res.statusCode !== 200) return reject(new Error(`stream ${i} answered ${res.statusCode}`));
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (counts[i] += chunk.split('\nevent: ').length - 1));
            resolve();
          });
          req.on('error', reject);
          reqs.push(req);
        }),
    ),
  );
  await new Promise((r) => setTimeout(r, 300));
  gc();
  const idle = process.memoryUsage();
  console.log(`\n3. memory per idle open stream (${STREAMS} streams; server and client in one process)`);
  console.log(
    `   heap ${((idle.heapUsed - before.heapUsed) / STREAMS / 1024).toFixed(1)} KiB, rss ${((idle.rss - before.rss) / STREAMS / 1024).toFixed(1)} KiB`,
  );

  const t = performance.now();
  for (let i = 0; i < EVENTS; i++) await store.append(run.runId, { type: 'function-call', at: new Date().toISOString(), data: { name: 'get_resource' } });
  while (counts.some((n) => n < EVENTS)) await new Promise((r) => setImmediate(r));
  const seconds = (performance.now() - t) / 1000;
  console.log(`\n2. events to ${STREAMS} open streams: ${EVENTS} events each, ${STREAMS * EVENTS} deliveries in ${seconds.toFixed(2)} s`);
  console.log(`   ${Math.round((STREAMS * EVENTS) / seconds)} events/s delivered (${Math.round(EVENTS / seconds)} events/s per stream)`);

  release();
  for (const r of reqs) r.destroy();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
