/**
 * Tracing benchmark: gateway throughput on the `version` tool with tracing
 * off, on at sampling 0.0, and on at 1.0 exporting OTLP/protobuf to a local
 * sink, all measured in the same run, rounds interleaved so drift hits every
 * mode alike. `gateway` is svc configured as bench/gateway.ts runs it (no
 * OTEL_* at all); `off` sets OTEL_TRACING_ENABLED=false with an exporter
 * configured. Run with `npm run bench:tracing` (BENCH_SECONDS, BENCH_ROUNDS).
 * Targets: off within the gateway's run-to-run spread; on at 1.0 >= 85% of off.
 */
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildContainer } from '../infrastructure/composition-root.js';
import { loadConfig } from '../infrastructure/config/config.js';
import { startServer } from '../interfaces/http/server.js';
import { load, printTable, startRole, type LoadResult } from './support/bench-kit.js';

const TOKEN = 'bench-token-0123456789abcdef';
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

type Mode = 'gateway' | 'off' | 'on-0.0' | 'on-1.0';
const MODES: Mode[] = ['gateway', 'off', 'on-0.0', 'on-1.0'];

function modeEnv(mode: Mode, sinkUrl: string): Record<string, string> {
  const otlp = { OTEL_EXPORTER_TYPE: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl };
  switch (mode) {
    case 'gateway':
      return {};
    case 'off':
      return { OTEL_TRACING_ENABLED: 'false', ...otlp };
    case 'on-0.0':
      return { OTEL_TRACING_ENABLED: 'true', OTEL_SAMPLING_PROBABILITY: '0.0', ...otlp };
    case 'on-1.0':
      return { OTEL_TRACING_ENABLED: 'true', OTEL_SAMPLING_PROBABILITY: '1.0', ...otlp };
  }
}

async function serveSvc() {
  const config = loadConfig({ ...process.env, HOST: '127.0.0.1', PORT: '0', SVC_AUTH_TOKEN: TOKEN, LOG_LEVEL: 'silent' });
  const running = await startServer(buildContainer(config));
  process.once('SIGTERM', () => void running.close().then(() => process.exit(0)));
  console.log(`URL ${running.url}`);
}

/** A collector stand-in that accepts OTLP exports and only counts them (its cost is not svc's). */
function serveSink() {
  const stats = { requests: 0, bytes: 0 };
  const server = http.createServer((req, res) => {
    if (req.method === 'GET') return void res.end(JSON.stringify(stats));
    req.on('data', (c: Buffer) => (stats.bytes += c.length));
    req.on('end', () => {
      stats.requests++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  server.listen(0, '127.0.0.1', () => console.log(`URL http://127.0.0.1:${(server.address() as AddressInfo).port}`));
}

/**
 * CPU seconds a child has used (user + system, from /proc; Linux). Requests per
 * CPU-second is the throughput the server would reach on a core of its own,
 * which holds steady on a busy machine where req/s swings with the neighbours.
 */
function cpuSeconds(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pct = (a: number, b: number) => `${((a / b) * 100).toFixed(1)}%`;

async function main() {
  const role = process.argv[2];
  if (role === 'svc') return serveSvc();
  if (role === 'sink') return serveSink();
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const sink = await startRole(__filename, 'sink');
  const servers = new Map<Mode, Awaited<ReturnType<typeof startRole>>>();
  for (const mode of MODES) servers.set(mode, await startRole(__filename, 'svc', modeEnv(mode, sink.url)));
  const rps = new Map<Mode, number[]>(MODES.map((m) => [m, []]));
  const perCpu = new Map<Mode, number[]>(MODES.map((m) => [m, []]));
  const rows: LoadResult[] = [];
  try {
    for (const mode of MODES) await load('warm-up', { url: `${servers.get(mode)!.url}/api/v1/tools/version`, method: 'POST', headers, body: '{}', duration: 1 });
    for (let round = 1; round <= rounds; round++) {
      // rotate the order each round so no mode always runs first or last
      const order = MODES.map((_, i) => MODES[(i + round) % MODES.length]!);
      for (const mode of order) {
        const server = servers.get(mode)!;
        const url = `${server.url}/api/v1/tools/version`;
        const cpuBefore = cpuSeconds(server.child.pid!);
        const r = await load(`${mode} round ${round}`, { url, method: 'POST', headers, body: '{}', duration: seconds });
        const cpuAfter = cpuSeconds(server.child.pid!);
        rows.push(r);
        rps.get(mode)!.push(r.rps);
        if (cpuBefore !== undefined && cpuAfter !== undefined && cpuAfter > cpuBefore) {
          perCpu.get(mode)!.push((r.rps * seconds) / (cpuAfter - cpuBefore));
        }
      }
    }
  } finally {
    for (const s of servers.values()) s.child.kill('SIGTERM');
    await Promise.all([...servers.values()].map((s) => new Promise((r) => (s.child.exitCode !== null ? r(null) : s.child.once('exit', r)))));
  }
  const stats = (await (await fetch(sink.url)).json()) as { requests: number; bytes: number };
  sink.child.kill();

  printTable(rows);
  const m = (mode: Mode) => median(rps.get(mode)!);
  const gw = rps.get('gateway')!;
  const spread = (Math.max(...gw) - Math.min(...gw)) / m('gateway');
  console.log(`\nmedian req/s: ${MODES.map((mode) => `${mode} ${m(mode).toFixed(0)}`).join(', ')}`);
  console.log(`gateway run-to-run spread: ${(spread * 100).toFixed(1)}% of its median`);
  console.log(`off / gateway:    ${pct(m('off'), m('gateway'))} (target: within the spread above)`);
  console.log(`on 0.0 / off:     ${pct(m('on-0.0'), m('off'))}`);
  console.log(`on 1.0 / off:     ${pct(m('on-1.0'), m('off'))} (target >= 85%)`);
  if (perCpu.get('off')!.length) {
    const c = (mode: Mode) => median(perCpu.get(mode)!);
    const gc = perCpu.get('gateway')!;
    console.log(`\nrequests per server CPU-second (steadier on a busy machine): ${MODES.map((mode) => `${mode} ${c(mode).toFixed(0)}`).join(', ')}`);
    console.log(`gateway run-to-run spread: ${(((Math.max(...gc) - Math.min(...gc)) / c('gateway')) * 100).toFixed(1)}% of its median`);
    console.log(`off / gateway:    ${pct(c('off'), c('gateway'))}`);
    console.log(`on 0.0 / off:     ${pct(c('on-0.0'), c('off'))}`);
    console.log(`on 1.0 / off:     ${pct(c('on-1.0'), c('off'))} (target >= 85%)`);
  }
  console.log(`OTLP received by the sink: ${stats.requests} exports, ${(stats.bytes / 1e6).toFixed(1)} MB`);
  if (stats.requests === 0) throw new Error('the sink received nothing: tracing at 1.0 did not export');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
