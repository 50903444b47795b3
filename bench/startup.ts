/**
 * npm run bench:startup — how fast svc starts, against bare node measured in
 * the same run (fresh processes, rounds interleaved so the machine's load
 * falls on both alike; medians):
 *
 * - the CLI: `svc --help`, `svc sandbox --list` and `svc tools --help` (no
 *   server needed) against a bare `node -e 0`; target (issue 44): at most 2x;
 * - the server on the embedded defaults: spawn to the first `/healthz`
 *   answer against a bare node:http server answering the same; target: at
 *   most 300 ms. Also spawn to the first answer of the app itself (the tool
 *   catalog, after the composition is built) and the RSS then (target
 *   <= 100 MB), so an early /healthz never hides the rest of the start;
 * - everything configured (a cluster, an OpenAI-compatible provider, Qdrant
 *   and OTLP tracing, against the loopback stand-ins of test/support):
 *   the same figures; targets from issue 15: <= 0.8 s and <= 130 MB.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KubeApiServer } from '../lab/sandbox/kube/kube-api-server.js';
import { startConfiguredStandIns } from '../test/support/configured-stand-ins.js';

const RUNS = Number(process.env.RUNS ?? 7);
const MAIN = path.join(__dirname, '..', 'interfaces', 'main.js');
const CLI = path.join(__dirname, '..', 'interfaces', 'cli', 'main.js');
const BARE_HTTP = `require('node:http').createServer((q, s) => { s.setHeader('Content-Type', 'application/json; charset=utf-8'); s.end('{"status":"ok"}'); })
  .listen(0, '127.0.0.1', function () { console.log(JSON.stringify({ url: 'http://127.0.0.1:' + this.address().port })); });`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const msSince = (t: bigint) => Number(process.hrtime.bigint() - t) / 1e6;

/** Spawn to exit of one command, its output discarded. */
function timeCommand(args: string[]): Promise<number> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    child.once('exit', (code) => (code === 0 ? resolve(msSince(started)) : reject(new Error(`${args.join(' ')} exited ${code}: ${err.slice(0, 300)}`))));
  });
}

interface Start {
  /** spawn to the first /healthz answer */
  healthMs: number;
  /** spawn to the first answer of the app (the tool catalog); the bare server answers it like /healthz */
  readyMs: number;
  /** RSS once the app answered */
  rssMb: number;
}

async function startOnce(args: string[], env: Record<string, string>): Promise<Start> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-startup-'));
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, args, {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', SVC_DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const m = /"url":"([^"]+)"/.exec(out);
        if (m) {
          clearInterval(timer);
          resolve(m[1]);
        }
      }, 1);
      child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out.slice(0, 500)}`)));
    });
    const health = await fetch(`${url}/healthz`);
    if (!health.ok) throw new Error(`/healthz answered ${health.status}`);
    await health.arrayBuffer();
    const healthMs = msSince(started);
    const catalog = await fetch(`${url}/api/v1/tools`);
    if (!catalog.ok) throw new Error(`/api/v1/tools answered ${catalog.status}`);
    await catalog.arrayBuffer();
    const readyMs = msSince(started);
    const rssMb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024;
    return { healthMs, readyMs, rssMb };
  } finally {
    child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const verdict = (ok: boolean) => (ok ? 'met' : 'missed');

async function cliSection(): Promise<void> {
  const commands: [string, string[]][] = [
    ['svc --help', [CLI, '--help']],
    ['svc sandbox --list', [CLI, 'sandbox', '--list']],
    ['svc tools --help', [CLI, 'tools', '--help']],
  ];
  const bare: number[] = [];
  const times = commands.map(() => [] as number[]);
  const ratios = commands.map(() => [] as number[]);
  for (let i = 0; i < RUNS; i++) {
    const b = await timeCommand(['-e', '0']);
    bare.push(b);
    for (const [k, [, args]] of commands.entries()) {
      const t = await timeCommand(args);
      times[k].push(t);
      ratios[k].push(t / b);
    }
  }
  console.log(`CLI: spawn to exit, median of ${RUNS} rounds; the ratio is the median of each round's ratio to the bare node -e 0 of that round\n`);
  console.log('| command | time | bare `node -e 0` | ratio | target | |');
  console.log('|---|---:|---:|---:|---|---|');
  for (const [k, [label]] of commands.entries()) {
    const r = median(ratios[k]);
    console.log(`| ${label} | ${median(times[k]).toFixed(0)} ms | ${median(bare).toFixed(0)} ms | ${r.toFixed(2)}x | <= 2x | ${verdict(r <= 2)} |`);
  }
  console.log('');
}

async function serverRow(label: string, env: Record<string, string>, target: { healthMs: number; readyMs?: number; mb: number }): Promise<void> {
  const bare: Start[] = [];
  const svc: Start[] = [];
  for (let i = 0; i < RUNS; i++) {
    bare.push(await startOnce(['-e', BARE_HTTP], {}));
    svc.push(await startOnce([MAIN], env));
  }
  const m = (xs: Start[], k: keyof Start) => median(xs.map((x) => x[k]));
  const health = m(svc, 'healthMs');
  const ready = m(svc, 'readyMs');
  const rss = m(svc, 'rssMb');
  const ok = health <= target.healthMs && (target.readyMs === undefined || ready <= target.readyMs) && rss <= target.mb;
  console.log(
    `| ${label} | ${health.toFixed(0)} ms | ${ready.toFixed(0)} ms | ${rss.toFixed(0)} MB | ${m(bare, 'healthMs').toFixed(0)} ms, ${m(bare, 'rssMb').toFixed(0)} MB | ` +
      `/healthz <= ${target.healthMs} ms${target.readyMs ? `, app <= ${target.readyMs} ms` : ''}, <= ${target.mb} MB | ${verdict(ok)} |`,
  );
}

async function main(): Promise<void> {
  console.log(`svc start-up, fresh processes (node ${process.version})\n`);
  if (process.env.BENCH_SECTIONS?.includes('cli') !== false) await cliSection();
  if (process.env.BENCH_SECTIONS && !process.env.BENCH_SECTIONS.includes('server')) return;
  const kube = await KubeApiServer.start();
  const standIns = await startConfiguredStandIns();
  try {
    console.log(
      `server: spawn to the first /healthz answer, to the app's first answer (GET /api/v1/tools) and RSS then; median of ${RUNS} fresh processes each\n`,
    );
    console.log('| configuration | /healthz | app | RSS | bare node:http server | target | |');
    console.log('|---|---:|---:|---:|---:|---|---|');
    await serverRow('embedded defaults', {}, { healthMs: 300, mb: 100 });
    await serverRow(
      'cluster + OpenAI-compatible + Qdrant + OTLP tracing',
      { KUBECONFIG: kube.writeKubeconfig(), ...standIns.env },
      { healthMs: 800, readyMs: 800, mb: 130 },
    );
  } finally {
    await Promise.all([kube.close(), standIns.close()]);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
