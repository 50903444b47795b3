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
import { load, printTable, ratio, startRole } from './support/bench-kit.js';

const TOKEN = 'bench-token-0123456789abcdef';
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

async function serveSvc() {
  const config = loadConfig({ ...process.env, HOST: '127.0.0.1', PORT: '0', SVC_AUTH_TOKEN: TOKEN, LOG_LEVEL: 'silent' });
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
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  const svc = await startRole(__filename, 'svc');
  const bare = await startRole(__filename, 'bare', { SVC_URL: svc.url });
  try {
    const rows = [];
    for (const [label, url] of [['bare', bare.url], ['svc', svc.url]] as const) {
      await load('warm-up', { url: `${url}/api/v1/tools`, headers, duration: 1 });
      rows.push(await load(`${label} GET /api/v1/tools`, { url: `${url}/api/v1/tools`, headers, duration: seconds }));
      rows.push(await load(`${label} POST /api/v1/tools/version`, { url: `${url}/api/v1/tools/version`, method: 'POST', headers, body: '{}', duration: seconds }));
    }
    printTable(rows);
    console.log(`\nsvc / bare throughput, catalog: ${ratio(rows[2], rows[0])} (target >= 70%)`);
    console.log(`svc / bare throughput, version: ${ratio(rows[3], rows[1])}`);
  } finally {
    svc.child.kill();
    bare.child.kill();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
