/**
 * Gateway benchmark (issue 15), in one run, as ratios of throughput (each the
 * median of paired rounds: svc and its peer back to back):
 * - the routes of the table (catalog, prompt list, a render without
 *   arguments, /healthz) and a render with arguments (issue 25) against a bare
 *   node:http server returning the same bytes: target >= 0.70;
 * - the other routes (a tool call: `version` and a `manageOrgData` list; the
 *   OpenAPI document; /readyz; an upload that
 *   changes nothing; a refresh of the configured repository) against a bare
 *   express app doing the same work (the same use cases, resolved from the
 *   same kind of container; the OpenAPI document built once) without svc's
 *   middleware: target >= 0.85. /mcp and /docs are not measured.
 * The prompts come from a configured repository (a local stand-in remote,
 * cloned once at start). Run with `npm run bench:gateway`
 * (BENCH_SECONDS, BENCH_ROUNDS to tune).
 */
import 'reflect-metadata';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { STATIC_TOKEN_CALLER } from '../domain/auth/caller.js';
import express from 'express';
import { appParts, buildContainer } from '../infrastructure/composition-root.js';
import { TOKENS } from '../infrastructure/tokens.js';
import { startServer } from '../interfaces/http/server.js';
import { manifestOf, skillFiles } from '../test/support/upload-manifests.js';
import { promptFile, WritingGitFetcher } from '../test/support/writing-git-fetcher.js';
import { openApiDocumentOf } from '../interfaces/http/openapi-document.js';
import { benchConfig, builtinPromptFiles, load, median, printTable, startRole, type LoadResult } from './support/bench-kit.js';

const TOKEN = 'bench-token-0123456789abcdef';
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const REPO = 'https://git.example/team/prompts.git';
const WITH_ARGUMENTS = JSON.stringify({ arguments: { pod: 'web-7d9f8', namespace: 'shop', container: 'app' } });
const ORG_LIST = JSON.stringify({ dataType: 'pattern', operation: 'list' });
/** A small skill folder, uploaded once before the runs: every upload in them is the "unchanged" answer. */
const UPLOAD = JSON.stringify(manifestOf('local:bench-skills', skillFiles('bench'), true));

type Target = { route: string; method: 'GET' | 'POST'; path: string; body?: string; peer: 'bare' | 'express'; target: number };
const ALL_TARGETS: Target[] = [
  { route: 'GET /api/v1/tools', method: 'GET', path: '/api/v1/tools', peer: 'bare', target: 0.7 },
  { route: 'GET /api/v1/prompts', method: 'GET', path: '/api/v1/prompts', peer: 'bare', target: 0.7 },
  { route: 'POST /api/v1/prompts/{name} (no arguments)', method: 'POST', path: '/api/v1/prompts/cluster-overview', body: '{}', peer: 'bare', target: 0.7 },
  { route: 'GET /healthz', method: 'GET', path: '/healthz', peer: 'bare', target: 0.7 },
  { route: 'POST /api/v1/tools/version', method: 'POST', path: '/api/v1/tools/version', body: '{}', peer: 'express', target: 0.85 },
  {
    route: 'POST /api/v1/prompts/{name} (arguments)',
    method: 'POST',
    path: '/api/v1/prompts/debug-crashloop',
    body: WITH_ARGUMENTS,
    peer: 'bare',
    target: 0.7,
  },
  { route: 'POST /api/v1/tools/manageOrgData (list)', method: 'POST', path: '/api/v1/tools/manageOrgData', body: ORG_LIST, peer: 'express', target: 0.85 },
  { route: 'GET /api/v1/openapi', method: 'GET', path: '/api/v1/openapi', peer: 'express', target: 0.85 },
  { route: 'GET /readyz', method: 'GET', path: '/readyz', peer: 'express', target: 0.85 },
  { route: 'POST /api/v1/prompts/sources (unchanged)', method: 'POST', path: '/api/v1/prompts/sources', body: UPLOAD, peer: 'express', target: 0.85 },
  { route: 'POST /api/v1/prompts/refresh', method: 'POST', path: '/api/v1/prompts/refresh', body: '{}', peer: 'express', target: 0.85 },
];

/** BENCH_ONLY=<text> keeps the routes whose name contains it (a quick look at one route). */
const TARGETS = ALL_TARGETS.filter((t) => !process.env.BENCH_ONLY || t.route.includes(process.env.BENCH_ONLY));

/** The built-in prompts plus one without arguments, as the configured repository. */
function repoFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const [p, f] of Object.entries(builtinPromptFiles())) files[p] = f.text;
  files['cluster-overview.md'] = promptFile(
    'cluster-overview',
    'A tour of the cluster',
    'List the namespaces, then the workloads that are not ready, and explain why.',
  );
  return files;
}

function containerForBench() {
  return buildContainer(benchConfig(TOKEN, { SVC_USER_PROMPTS_REPO: REPO }), { gitFetcher: new WritingGitFetcher(repoFiles()) });
}

/** What a warm server has: the configured repository cloned, the skill folder uploaded. */
async function warm(url: string) {
  for (const [path, body] of [
    ['/api/v1/prompts', undefined],
    ['/api/v1/prompts/sources', UPLOAD],
  ] as const) {
    const res = await fetch(`${url}${path}`, { method: body ? 'POST' : 'GET', headers, body });
    if (res.status !== 200) throw new Error(`warming ${path}: ${res.status} ${await res.text()}`);
  }
}

async function serveSvc() {
  const running = await startServer(appParts(containerForBench()));
  await warm(running.url);
  console.log(`URL ${running.url}`);
}

/** The same use cases behind plain express routes: JSON parsing and the envelope, nothing else. */
async function serveExpress() {
  const c = containerForBench();
  const executeTool = c.resolve(TOKENS.ExecuteTool);
  const checkReadiness = c.resolve(TOKENS.CheckReadiness);
  const ingestSource = c.resolve(TOKENS.IngestSource);
  const refreshPrompts = c.resolve(TOKENS.RefreshPrompts);
  const openapi = Buffer.from(JSON.stringify(openApiDocumentOf(c.resolve(TOKENS.ToolRegistry))));
  const app = express();
  // svc sends no ETag either: without this express hashes every body
  app.set('etag', false);
  app.use(express.json({ limit: '1mb' }));
  const meta = () => ({ timestamp: new Date().toISOString(), requestId: 'r', version: 'v1' });
  const listPrompts = c.resolve(TOKENS.ListPrompts);
  app.get('/api/v1/prompts', async (_req, res) => {
    res.json({ success: true, data: await listPrompts.execute({}), meta: meta() });
  });
  app.get('/api/v1/openapi', (_req, res) => {
    res.type('json').send(openapi);
  });
  app.get('/readyz', async (_req, res) => {
    const report = await checkReadiness.execute();
    res.status(report.ready ? 200 : 503).json(report);
  });
  app.post('/api/v1/prompts/sources', async (req, res) => {
    res.json({ success: true, data: await ingestSource.execute(req.body), meta: meta() });
  });
  app.post('/api/v1/prompts/refresh', async (req, res) => {
    res.json({ success: true, data: await refreshPrompts.execute({ repo: req.body?.repo, path: req.body?.path, branch: req.body?.branch }), meta: meta() });
  });
  app.post('/api/v1/tools/:toolName', async (req, res) => {
    const data = await executeTool.execute({ toolName: req.params.toolName, params: req.body ?? {}, requestId: 'r', caller: STATIC_TOKEN_CALLER });
    res.json({ success: true, data, meta: meta() });
  });
  const server = app.listen(0, '127.0.0.1', async () => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await warm(url);
    console.log(`URL ${url}`);
  });
}

async function serveBare(svcUrl: string) {
  // The same bytes svc answers with, captured once, then served verbatim.
  const bytes = new Map<string, Buffer>();
  for (const t of ALL_TARGETS.filter((x) => x.peer === 'bare')) {
    const res = await fetch(`${svcUrl}${t.path}`, { method: t.method, headers, body: t.body });
    if (res.status !== 200) throw new Error(`${t.route}: svc answered ${res.status}`);
    bytes.set(`${t.method} ${t.path}`, Buffer.from(await res.arrayBuffer()));
  }
  const server = http.createServer((req, res) => {
    const body = bytes.get(`${req.method} ${req.url}`) ?? Buffer.from('{}');
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
  if (role === 'express') return serveExpress();
  const seconds = Number(process.env.BENCH_SECONDS ?? 3);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
  const loadBefore = os.loadavg();
  const svc = await startRole(__filename, 'svc');
  const bare = await startRole(__filename, 'bare', { SVC_URL: svc.url });
  const plain = await startRole(__filename, 'express');
  const peers = { bare: bare.url, express: plain.url };
  try {
    const runs: Record<string, LoadResult[]> = {};
    const opts = (t: Target, url: string) => ({ url: `${url}${t.path}`, method: t.method, headers, body: t.body });
    for (const t of TARGETS) {
      for (const url of [svc.url, peers[t.peer]]) await load('warm-up', { ...opts(t, url), duration: 2 });
    }
    // Each round runs svc and its peer back to back (in alternating order) and
    // keeps their ratio; the figure is the median of those paired ratios, so a
    // slow spell of the machine (on 2 shared cores throughput drifts by +-20%
    // from one run to the next) lands on both sides of a pair, not on one.
    const ratios: Record<string, number[]> = {};
    for (let r = 0; r < rounds; r++) {
      for (const t of TARGETS) {
        const pair = [
          ['svc', svc.url],
          [t.peer, peers[t.peer]],
        ] as const;
        const rps: Record<string, number> = {};
        for (const [label, url] of r % 2 ? [...pair].reverse() : pair) {
          const key = `${label} ${t.route}`;
          const result = await load(key, { ...opts(t, url), duration: seconds });
          (runs[key] ??= []).push(result);
          rps[label] = result.rps;
        }
        (ratios[t.route] ??= []).push(rps.svc / rps[t.peer]);
      }
    }
    const rows = Object.values(runs).map(median);
    printTable(rows);
    const loadAfter = os.loadavg();
    console.log(
      `\nreq/s: medians of ${rounds} rounds of ${seconds}s, 32 connections; svc / peer: median of the ${rounds} paired ratios; load average ${loadBefore[0].toFixed(2)} before, ${loadAfter[0].toFixed(2)} after (${os.cpus().length} cores)\n`,
    );
    console.log('| route | peer | svc / peer | range | target | |');
    console.log('|---|---|---:|---:|---:|---|');
    let missed = 0;
    for (const t of TARGETS) {
      const sorted = [...ratios[t.route]].sort((a, b) => a - b);
      const ratio = sorted[Math.floor(sorted.length / 2)];
      if (ratio < t.target) missed++;
      const peer = t.peer === 'bare' ? 'bare node:http, same bytes' : 'bare express, same use case';
      const range = `${sorted[0].toFixed(2)}-${sorted[sorted.length - 1].toFixed(2)}`;
      console.log(`| ${t.route} | ${peer} | ${ratio.toFixed(2)} | ${range} | >= ${t.target.toFixed(2)} | ${ratio >= t.target ? 'met' : 'MISSED'} |`);
    }
    console.log(`\n${TARGETS.length - missed} of ${TARGETS.length} targets met`);
  } finally {
    svc.child.kill();
    bare.child.kill();
    plain.child.kill();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
