/**
 * Identity benchmark (issue 20): what a JWT caller costs the hot routes
 * against the static token, on the same svc process (configured with both
 * `SVC_AUTH_TOKEN` and OIDC against a local key endpoint with a real RS256
 * key), as paired rounds (static and JWT back to back, alternating order):
 * - `jwt`: one JWT per connection (the gate's per-connection verdict),
 *   against the static token;
 * - `jwt, 2 alternating`: each connection alternates two JWTs (a portal
 *   sending two users' tokens over one pooled connection; the gate keeps
 *   the last four verdicts per connection), against the static token;
 * - `jwt, 8 alternating`: each connection cycles eight JWTs, more than the
 *   gate keeps per connection, so every request is answered from the
 *   verified-token cache (a SHA-256 of the token and a map lookup); its
 *   baseline is eight named static tokens cycled the same way (the tokens
 *   file: a SHA-256 and a map lookup too), so the figure is what verifying
 *   a JWT costs beyond the lookup any token needs.
 * Target: JWT / baseline >= 0.90 on each route. `npm run bench:identity`
 * (BENCH_SECONDS, BENCH_ROUNDS to tune).
 */
import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { appParts, buildContainer } from '../infrastructure/composition-root.js';
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

const NAMED = Array.from({ length: 8 }, (_, i) => `bench-named-token-${i}-0123456789abcdef`);

async function serveSvc() {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'svc-bench-identity-')), 'tokens');
  writeFileSync(file, NAMED.map((t, i) => `bench-${i} viewer ${createHash('sha256').update(t).digest('hex')}\n`).join(''));
  const running = await startServer(appParts(buildContainer(benchConfig(TOKEN, { SVC_ROLES: 'viewer=*', SVC_AUTH_TOKENS_FILE: file }))));
  console.log(`URL ${running.url}`);
}

async function main() {
  if (process.argv[2] === 'svc') return serveSvc();
  const seconds = Number(process.env.BENCH_SECONDS ?? 3);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
  const idp = await OidcServer.start(['RS256']);
  const jwts: string[] = [];
  for (let i = 0; i < 8; i++) jwts.push(await idp.token({ sub: `bench-${i}`, groups: i % 2 ? ['sre'] : ['sre', 'oncall'] }));
  const svc = await startRole(__filename, 'svc', idp.env({ SVC_OIDC_JWKS_COOLDOWN_MS: '30000' }));
  const loadBefore = os.loadavg();
  const json = { 'content-type': 'application/json' };
  const callers = {
    static: [{ authorization: `Bearer ${TOKEN}`, ...json }],
    jwt: [{ authorization: `Bearer ${jwts[0]}`, ...json }],
    'jwt, 2 alternating': jwts.slice(0, 2).map((j) => ({ authorization: `Bearer ${j}`, ...json })),
    'jwt, 8 alternating': jwts.map((j) => ({ authorization: `Bearer ${j}`, ...json })),
    'static, 8 alternating': NAMED.map((t) => ({ authorization: `Bearer ${t}`, ...json })),
  };
  const KINDS = [
    ['jwt', 'static'],
    ['jwt, 2 alternating', 'static'],
    ['jwt, 8 alternating', 'static, 8 alternating'],
  ] as const;
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
        for (const [kind, base] of KINDS) {
          const pair = round % 2 ? [base, kind] : [kind, base];
          const rps: Record<string, number> = {};
          for (const who of pair) {
            const key = `${who} ${r.route}`;
            const result = await load(key, { ...opts(r, callers[who]), duration: seconds });
            if (result.non2xx) throw new Error(`${key}: ${result.non2xx} answers were not 2xx`);
            (runs[key] ??= []).push(result);
            rps[who] = result.rps;
          }
          (ratios[`${r.route} | ${kind} | ${base}`] ??= []).push(rps[kind] / rps[base]);
        }
      }
    }
    printTable(Object.values(runs).map(median));
    const loadAfter = os.loadavg();
    console.log(
      `\nreq/s: medians of ${rounds} rounds of ${seconds}s, 32 connections; JWT / baseline: median of the paired ratios; load average ${loadBefore[0].toFixed(2)} before, ${loadAfter[0].toFixed(2)} after (${os.cpus().length} cores)\n`,
    );
    console.log('| route | caller | baseline | JWT / baseline | range | target | |');
    console.log('|---|---|---|---:|---:|---:|---|');
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
