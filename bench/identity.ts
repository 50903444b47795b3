/**
 * Identity benchmark (issue 20): what a JWT caller costs the hot routes
 * against the static token, on the same svc process (configured with both
 * `SVC_AUTH_TOKEN` and OIDC against a local key endpoint with a real RS256
 * key), as paired rounds (static and JWT back to back, alternating order):
 * - `jwt`: one JWT per connection (the gate's per-connection verdict);
 * - `jwt, 2 alternating`: each connection alternates two JWTs, so every
 *   request misses the per-connection verdict and is answered from the
 *   verified-token cache (a SHA-256 of the token and a map lookup).
 * Target: JWT / static >= 0.90 on each route. `npm run bench:identity`
 * (BENCH_SECONDS, BENCH_ROUNDS to tune).
 */
import 'reflect-metadata';
import os from 'node:os';
import { buildContainer } from '../infrastructure/composition-root.js';
import { startServer } from '../interfaces/http/server.js';
import { OidcServer } from '../test/support/oidc-server.js';
import { benchConfig, load, median, printTable, startRole, type LoadResult } from './support/bench-kit.js';

const TOKEN = 'bench-token-0123456789abcdef';
const ROUTES = [
  { route: 'GET /api/v1/tools', method: 'GET' as const, path: '/api/v1/tools' },
  { route: 'GET /api/v1/prompts', method: 'GET' as const, path: '/api/v1/prompts' },
  { route: 'POST /api/v1/tools/version', method: 'POST' as const, path: '/api/v1/tools/version', body: '{}' },
];
const TARGET = 0.9;

async function serveSvc() {
  const running = await startServer(buildContainer(benchConfig(TOKEN, { SVC_ROLES: 'viewer=*' })));
  console.log(`URL ${running.url}`);
}

async function main() {
  if (process.argv[2] === 'svc') return serveSvc();
  const seconds = Number(process.env.BENCH_SECONDS ?? 3);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
  const idp = await OidcServer.start(['RS256']);
  const jwts = [await idp.token({ sub: 'bench-a', groups: ['sre', 'oncall'] }), await idp.token({ sub: 'bench-b', groups: ['sre'] })];
  const svc = await startRole(__filename, 'svc', idp.env({ SVC_OIDC_JWKS_COOLDOWN_MS: '30000' }));
  const loadBefore = os.loadavg();
  const json = { 'content-type': 'application/json' };
  const callers = {
    static: [{ authorization: `Bearer ${TOKEN}`, ...json }],
    jwt: [{ authorization: `Bearer ${jwts[0]}`, ...json }],
    'jwt, 2 alternating': jwts.map((j) => ({ authorization: `Bearer ${j}`, ...json })),
  };
  try {
    const opts = (r: (typeof ROUTES)[number], headers: Record<string, string>[]) => ({
      url: `${svc.url}${r.path}`,
      requests: headers.map((h) => ({ method: r.method, headers: h, body: r.body })),
    });
    for (const r of ROUTES) for (const h of Object.values(callers)) await load('warm-up', { ...opts(r, h), duration: 1 });
    const runs: Record<string, LoadResult[]> = {};
    const ratios: Record<string, number[]> = {};
    for (let round = 0; round < rounds; round++) {
      for (const r of ROUTES) {
        for (const kind of ['jwt', 'jwt, 2 alternating'] as const) {
          const pair = round % 2 ? (['static', kind] as const) : ([kind, 'static'] as const);
          const rps: Record<string, number> = {};
          for (const who of pair) {
            const key = `${who} ${r.route}`;
            const result = await load(key, { ...opts(r, callers[who]), duration: seconds });
            if (result.non2xx) throw new Error(`${key}: ${result.non2xx} answers were not 2xx`);
            (runs[key] ??= []).push(result);
            rps[who] = result.rps;
          }
          (ratios[`${r.route} | ${kind}`] ??= []).push(rps[kind] / rps.static);
        }
      }
    }
    printTable(Object.values(runs).map(median));
    const loadAfter = os.loadavg();
    console.log(
      `\nreq/s: medians of ${rounds} rounds of ${seconds}s, 32 connections; JWT / static: median of the paired ratios; load average ${loadBefore[0].toFixed(2)} before, ${loadAfter[0].toFixed(2)} after (${os.cpus().length} cores)\n`,
    );
    console.log('| route | caller | JWT / static | range | target | |');
    console.log('|---|---|---:|---:|---:|---|');
    let missed = 0;
    for (const [key, values] of Object.entries(ratios)) {
      const sorted = [...values].sort((a, b) => a - b);
      const ratio = sorted[Math.floor(sorted.length / 2)];
      if (ratio < TARGET) missed++;
      console.log(
        `| ${key} | ${ratio.toFixed(2)} | ${sorted[0].toFixed(2)}-${sorted[sorted.length - 1].toFixed(2)} | >= ${TARGET.toFixed(2)} | ${ratio >= TARGET ? 'met' : 'MISSED'} |`,
      );
    }
    console.log(`\n${Object.keys(ratios).length - missed} of ${Object.keys(ratios).length} targets met`);
  } finally {
    svc.child.kill();
    await idp.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
