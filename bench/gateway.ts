/**
 * Gateway benchmark: svc against a bare node:http server returning the same
 * bytes, measured in the same run. Run with `npm run bench:gateway`.
 * Target: svc keeps >= 70% of the bare server's throughput on the catalog.
 */
import 'reflect-metadata';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildContainer } from '../infrastructure/composition-root.js';
import { loadConfig } from '../infrastructure/config/config.js';
import { startServer } from '../interfaces/http/server.js';
import { load, median, printTable, ratio, startRole, type LoadResult } from './support/bench-kit.js';

const TOKEN = 'bench-token-0123456789abcdef';
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

async function serveSvc() {
  // rate limits off: the bench measures throughput, not the budget
  const config = loadConfig({ ...process.env, HOST: '127.0.0.1', PORT: '0', SVC_AUTH_TOKEN: TOKEN, LOG_LEVEL: 'silent', SVC_RATE_LIMIT_ENABLED: 'false' });
  const running = await startServer(buildContainer(config));
  console.log(`URL ${running.url}`);
}

async function serveBare(svcUrl: string) {
  // The same bytes svc answers with, captured once, then served verbatim.
  const catalog = Buffer.from(await (await fetch(`${svcUrl}/api/v1/tools`, { headers })).arrayBuffer());
  const version = Buffer.from(await (await fetch(`${svcUrl}/api/v1/tools/version`, { method: 'POST', headers, body: '{}' })).arrayBuffer());
  const server = http.createServer((req, res) => {
    const body = req.method === 'POST' ? version : catalog;
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
      res.end(body);
    });
  });
  server.listen(0, '127.0.0.1', () => console.log(`URL http://127.0.0.1:${(server.address() as AddressInfo).port}`));
}

async function main() {
  const role = process.argv[2];
  if (role === 'svc') return serveSvc();
  if (role === 'bare') return serveBare(process.env.SVC_URL!);
  const seconds = Number(process.env.BENCH_SECONDS ?? 3);
  const svc = await startRole(__filename, 'svc');
  const bare = await startRole(__filename, 'bare', { SVC_URL: svc.url });
  try {
    // Alternate the two servers over several rounds and keep each one's median,
    // so a burst of load from elsewhere on the machine hits both alike.
    const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
    const runs: Record<string, LoadResult[]> = {};
    const targets = [
      ['GET /api/v1/tools', (u: string) => ({ url: `${u}/api/v1/tools`, headers })],
      ['POST /api/v1/tools/version', (u: string) => ({ url: `${u}/api/v1/tools/version`, method: 'POST' as const, headers, body: '{}' })],
    ] as const;
    for (const [, url] of [['bare', bare.url], ['svc', svc.url]] as const) await load('warm-up', { url: `${url}/api/v1/tools`, headers, duration: 1 });
    for (let r = 0; r < rounds; r++) {
      for (const [route, opts] of targets) {
        for (const [label, url] of [['bare', bare.url], ['svc', svc.url]] as const) {
          const key = `${label} ${route}`;
          (runs[key] ??= []).push(await load(key, { ...opts(url), duration: seconds }));
        }
      }
    }
    const rows = Object.values(runs).map(median);
    printTable(rows);
    const by = (label: string) => rows.find((x) => x.label === label)!;
    console.log(`\nmedian of ${rounds} alternating rounds of ${seconds}s, 32 connections`);
    console.log(`svc / bare throughput, catalog: ${ratio(by('svc GET /api/v1/tools'), by('bare GET /api/v1/tools'))} (target >= 70%)`);
    console.log(`svc / bare throughput, version: ${ratio(by('svc POST /api/v1/tools/version'), by('bare POST /api/v1/tools/version'))}`);
  } finally {
    svc.child.kill();
    bare.child.kill();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
