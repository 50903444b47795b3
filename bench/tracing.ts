/**
 * Tracing benchmark: gateway throughput on the `version` tool with tracing
 * off, on at sampling 0.0, and on at 1.0 exporting OTLP/protobuf to a local
 * sink, all measured in the same run. Every measurement gets a fresh server
 * process and the order of modes rotates per round, so neither a slow process
 * nor drift on a shared machine lands on one mode; medians are reported.
 * `gateway` is svc configured as bench/gateway.ts runs it (no OTEL_* at all);
 * `off` sets OTEL_TRACING_ENABLED=false with an exporter configured;
 * `off+als` is `off` with one AsyncLocalStorage switched on, to separate what
 * context propagation costs on this Node from what spans cost.
 * Run with `npm run bench:tracing` (BENCH_SECONDS, BENCH_ROUNDS, BENCH_MODES).
 * Targets: off within the gateway's run-to-run spread; on at 1.0 >= 85% of off.
 */
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { appParts, buildContainer } from '../infrastructure/composition-root.js';
import { loadConfig } from '../infrastructure/config/config.js';
import { startServer } from '../interfaces/http/server.js';
import { load, printTable, startRole, type LoadResult } from './support/bench-kit.js';

const TOKEN = 'bench-token-0123456789abcdef';
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

type Mode = 'gateway' | 'off' | 'off+als' | 'on-0.0' | 'on-1.0';
const ALL_MODES: Mode[] = ['gateway', 'off', 'off+als', 'on-0.0', 'on-1.0'];
/** BENCH_MODES=on-1.0 runs a subset (off is always included: the ratios are against it). */
const MODES = ALL_MODES.filter((m) => !process.env.BENCH_MODES || m === 'off' || process.env.BENCH_MODES.split(',').includes(m));

function modeEnv(mode: Mode, sinkUrl: string): Record<string, string> {
  const otlp = { OTEL_EXPORTER_TYPE: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl };
  const als = `-r ${path.join(__dirname, 'support', 'enable-async-local-storage.js')}`;
  switch (mode) {
    case 'gateway':
      return {};
    case 'off':
      return { OTEL_TRACING_ENABLED: 'false', ...otlp };
    case 'off+als':
      return { OTEL_TRACING_ENABLED: 'false', ...otlp, NODE_OPTIONS: als };
    case 'on-0.0':
      return { OTEL_TRACING_ENABLED: 'true', OTEL_SAMPLING_PROBABILITY: '0.0', ...otlp };
    case 'on-1.0':
      return { OTEL_TRACING_ENABLED: 'true', OTEL_SAMPLING_PROBABILITY: '1.0', ...otlp };
  }
}

async function serveSvc() {
  const config = loadConfig({ ...process.env, HOST: '127.0.0.1', PORT: '0', SVC_AUTH_TOKEN: TOKEN, LOG_LEVEL: 'silent', SVC_RATE_LIMIT_ENABLED: 'false' });
  const running = await startServer(appParts(buildContainer(config)));
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
 * which holds steadier on a busy machine where req/s swings with the neighbours.
 */
function cpuSeconds(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]! : NaN);
const pct = (a: number, b: number) => `${((a / b) * 100).toFixed(1)}%`;
const spread = (xs: number[]) => `${(((Math.max(...xs) - Math.min(...xs)) / median(xs)) * 100).toFixed(1)}%`;

/** Long enough for the JIT to settle: a fresh process with tracing on has more code to optimise. */
const WARM_UP_SECONDS = 3;

/** One measurement: a fresh server in `mode`, a warm-up, then the timed load. */
async function measure(mode: Mode, label: string, sinkUrl: string, seconds: number) {
  const server = await startRole(__filename, 'svc', modeEnv(mode, sinkUrl));
  try {
    const url = `${server.url}/api/v1/tools/version`;
    await load('warm-up', { url, method: 'POST', headers, body: '{}', duration: WARM_UP_SECONDS });
    const cpuBefore = cpuSeconds(server.child.pid!);
    const r = await load(label, { url, method: 'POST', headers, body: '{}', duration: seconds });
    const cpuAfter = cpuSeconds(server.child.pid!);
    const perCpu = cpuBefore !== undefined && cpuAfter !== undefined && cpuAfter > cpuBefore ? (r.rps * seconds) / (cpuAfter - cpuBefore) : NaN;
    return { r, perCpu };
  } finally {
    server.child.kill('SIGTERM'); // drains and flushes its spans
    await new Promise((resolve) => (server.child.exitCode !== null ? resolve(null) : server.child.once('exit', resolve)));
  }
}

function report(title: string, values: Map<Mode, number[]>) {
  const m = (mode: Mode) => median(values.get(mode) ?? []);
  console.log(`\n${title}: ${MODES.map((mode) => `${mode} ${m(mode).toFixed(0)}`).join(', ')}`);
  if (values.has('gateway')) console.log(`  gateway run-to-run spread: ${spread(values.get('gateway')!)} of its median`);
  if (values.has('gateway')) console.log(`  off / gateway:  ${pct(m('off'), m('gateway'))} (target: within that spread)`);
  console.log(`  off spread:     ${spread(values.get('off')!)}`);
  if (values.has('on-0.0')) console.log(`  on 0.0 / off:   ${pct(m('on-0.0'), m('off'))}`);
  if (values.has('on-1.0')) console.log(`  on 1.0 / off:   ${pct(m('on-1.0'), m('off'))} (target >= 85%)`);
  if (values.has('off+als')) console.log(`  off+als / off:  ${pct(m('off+als'), m('off'))} (one AsyncLocalStorage on, no span)`);
}

/** CPU per tool run (no HTTP) in a fresh process per mode and round; see support/tool-run-cpu.ts. */
function toolRunCpu(mode: Mode): number {
  const env = { ...process.env, ...modeEnv(mode, 'http://127.0.0.1:0') };
  const out = execFileSync(process.execPath, [path.join(__dirname, 'support', 'tool-run-cpu.js')], { env, encoding: 'utf8' });
  return Number(/CPU_US (\S+)/.exec(out)![1]);
}

async function main() {
  const role = process.argv[2];
  if (role === 'svc') return serveSvc();
  if (role === 'sink') return serveSink();
  const seconds = Number(process.env.BENCH_SECONDS ?? 4);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 4);
  const sink = await startRole(__filename, 'sink');
  const rps = new Map<Mode, number[]>(MODES.map((m) => [m, []]));
  const perCpu = new Map<Mode, number[]>(MODES.map((m) => [m, []]));
  const rows: LoadResult[] = [];
  try {
    for (let round = 1; round <= rounds; round++) {
      for (let i = 0; i < MODES.length; i++) {
        const mode = MODES[(i + round) % MODES.length]!;
        const { r, perCpu: c } = await measure(mode, `${mode} round ${round}`, sink.url, seconds);
        rows.push(r);
        rps.get(mode)!.push(r.rps);
        if (Number.isFinite(c)) perCpu.get(mode)!.push(c);
      }
    }
    printTable(rows);
    report('median req/s', rps);
    if (perCpu.get('off')!.length) report('median requests per server CPU-second', perCpu);
    const cpu = new Map<Mode, number[]>(MODES.map((m) => [m, []]));
    for (let round = 0; round < rounds; round++) for (const mode of MODES) cpu.get(mode)!.push(toolRunCpu(mode));
    console.log(`\nmedian CPU per tool run, no HTTP (µs): ${MODES.map((mode) => `${mode} ${median(cpu.get(mode)!).toFixed(1)}`).join(', ')}`);
    const off = median(cpu.get('off')!);
    const perRequest = 1e6 / median(perCpu.get('off')!);
    for (const mode of MODES.filter((m) => m.startsWith('on'))) {
      const added = median(cpu.get(mode)!) - off;
      console.log(
        `  ${mode} adds ${added.toFixed(1)} µs per run; on the ${perRequest.toFixed(0)} µs an HTTP tool request costs with tracing off: ${pct(perRequest, perRequest + added)} of off`,
      );
    }
    const stats = (await (await fetch(sink.url)).json()) as { requests: number; bytes: number };
    console.log(`\nOTLP received by the sink: ${stats.requests} exports, ${(stats.bytes / 1e6).toFixed(1)} MB`);
    if (MODES.includes('on-1.0') && stats.requests === 0) throw new Error('the sink received nothing: tracing at 1.0 did not export');
  } finally {
    sink.child.kill();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
