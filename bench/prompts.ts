/**
 * Prompts benchmark, in one run:
 * 1. warm-cache render throughput of svc (configured repo already cloned)
 *    against a bare node:http server answering the same bytes;
 * 2. cold clone cost: the isomorphic-git fetcher against `git clone --depth 1`
 *    of the same repo from the same git http-backend, plus svc's whole cold
 *    path (refresh = clone + read + parse).
 * Run with `npm run bench:prompts` (BENCH_SECONDS, BENCH_CLONES to tune).
 */
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { IsomorphicGitFetcher } from '../infrastructure/git/isomorphic-git-fetcher.js';
import { appParts, buildContainer } from '../infrastructure/composition-root.js';
import { loadConfig } from '../infrastructure/config/config.js';
import { startServer } from '../interfaces/http/server.js';
import type { RenderPrompt } from '../application/prompts/render-prompt.js';
import { TOKENS } from '../infrastructure/tokens.js';
import { startGitHttpServer, type RepoFile } from '../test/support/git-http-server.js';
import { benchConfig, builtinPromptFiles, load, printTable, ratio, startRole } from './support/bench-kit.js';

const TOKEN = 'bench-token-0123456789abcdef';
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const RENDER_BODY = JSON.stringify({ arguments: { pod: 'web-7d9f8', namespace: 'shop', container: 'app' } });

/** The built-in prompts plus 40 generated ones: a realistic team repo. */
function benchRepoFiles(): Record<string, RepoFile> {
  const files: Record<string, RepoFile> = builtinPromptFiles();
  for (let i = 0; i < 40; i++) {
    files[`team-${i}.md`] =
      `---\nname: team-${i}\ndescription: Team prompt ${i}\narguments:\n  - name: service\n    required: true\n---\n${'Check {{service}} carefully. '.repeat(40)}\n`;
  }
  return files;
}

async function serveGit() {
  const git = await startGitHttpServer({ prompts: { files: benchRepoFiles() } });
  console.log(`URL ${git.baseUrl}/prompts.git`);
}

async function serveSvc(repo: string) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-bench-'));
  const config = benchConfig(TOKEN, { SVC_DATA_DIR: dataDir, SVC_USER_PROMPTS_REPO: repo });
  const running = await startServer(appParts(buildContainer(config)));
  process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  console.log(`URL ${running.url}`);
}

async function serveBare(svcUrl: string) {
  const res = await fetch(`${svcUrl}/api/v1/prompts/debug-crashloop`, { method: 'POST', headers, body: RENDER_BODY });
  if (res.status !== 200) throw new Error(`render answered ${res.status}`);
  const body = Buffer.from(await res.arrayBuffer());
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
      res.end(body);
    });
  });
  server.listen(0, '127.0.0.1', () => console.log(`URL http://127.0.0.1:${(server.address() as AddressInfo).port}`));
}

/** The render use case alone, in this process, warm: how much of a request is the prompt work. */
async function useCaseMicros(repo: string): Promise<number> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-bench-uc-'));
  try {
    const config = loadConfig({ LOG_LEVEL: 'silent', SVC_DATA_DIR: dataDir, SVC_USER_PROMPTS_REPO: repo });
    const render = buildContainer(config).resolve<RenderPrompt>(TOKENS.RenderPrompt);
    const input = { name: 'debug-crashloop', arguments: JSON.parse(RENDER_BODY).arguments };
    await render.execute(input);
    const n = 20000;
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await render.execute(input);
    return Number(process.hrtime.bigint() - start) / 1e3 / n;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function gitCli(repo: string, dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['clone', '-q', '--depth', '1', '--single-branch', '--branch', 'main', repo, dir], {
      stdio: 'ignore',
      env: { PATH: process.env.PATH, HOME: tmpdir(), GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' },
    });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`git clone exited ${code}`))));
  });
}

async function coldClones(repo: string, svcUrl: string, rounds: number) {
  const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-clones-'));
  const fetcher = new IsomorphicGitFetcher();
  const iso: number[] = [];
  const cli: number[] = [];
  const refresh: number[] = [];
  try {
    for (let i = 0; i < rounds + 1; i++) {
      // alternate so both see the same server warmth; round 0 is a warm-up
      const a = await timed(() =>
        fetcher.clone({ url: repo, displayUrl: repo, branch: 'main', dir: path.join(work, `iso-${i}`), timeoutMs: 120000, refuseNonPublicRedirects: false }),
      );
      const b = await timed(() => gitCli(repo, path.join(work, `cli-${i}`)));
      const c = await timed(async () => {
        const res = await fetch(`${svcUrl}/api/v1/prompts/refresh`, { method: 'POST', headers, body: '{}' });
        if (res.status !== 200) throw new Error(`refresh answered ${res.status}`);
        await res.arrayBuffer();
      });
      if (i > 0) {
        iso.push(a);
        cli.push(b);
        refresh.push(c);
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return { iso: median(iso), cli: median(cli), refresh: median(refresh) };
}

async function main() {
  const role = process.argv[2];
  if (role === 'git') return serveGit();
  if (role === 'svc') return serveSvc(process.env.REPO_URL!);
  if (role === 'bare') return serveBare(process.env.SVC_URL!);
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  const rounds = Number(process.env.BENCH_CLONES ?? 10);
  const git = await startRole(__filename, 'git');
  const svc = await startRole(__filename, 'svc', { REPO_URL: git.url });
  const children = [git.child, svc.child];
  try {
    const warm = await fetch(`${svc.url}/api/v1/prompts`, { headers });
    const listed = (await warm.json()) as { data: { prompts: unknown[] } };
    console.log(`repo ${git.url}: ${listed.data.prompts.length} prompts, cache warm\n`);
    const bare = await startRole(__filename, 'bare', { SVC_URL: svc.url });
    children.push(bare.child);

    const rows = [];
    for (const [label, url] of [
      ['bare', bare.url],
      ['svc', svc.url],
    ] as const) {
      const target = `${url}/api/v1/prompts/debug-crashloop`;
      await load('warm-up', { url: target, method: 'POST', headers, body: RENDER_BODY, duration: 1 });
      rows.push(
        await load(`${label} POST /api/v1/prompts/debug-crashloop (warm cache)`, {
          url: target,
          method: 'POST',
          headers,
          body: RENDER_BODY,
          duration: seconds,
        }),
      );
    }
    printTable(rows);

    const cold = await coldClones(git.url, svc.url, rounds);
    console.log(`\ncold clone, median of ${rounds}:`);
    console.log('| run | ms |');
    console.log('|---|---:|');
    console.log(`| git clone --depth 1 (CLI) | ${cold.cli.toFixed(1)} |`);
    console.log(`| isomorphic-git fetcher (depth 1, single branch) | ${cold.iso.toFixed(1)} |`);
    console.log(`| svc POST /api/v1/prompts/refresh (clone + read + parse) | ${cold.refresh.toFixed(1)} |`);

    const micros = await useCaseMicros(git.url);
    console.log(`\nrender use case alone (in process, warm cache): ${micros.toFixed(1)} µs/op`);
    console.log(`\nsvc / bare render throughput (warm cache): ${ratio(rows[1], rows[0])}`);
    console.log(`isomorphic-git / git CLI cold clone time: ${(cold.iso / cold.cli).toFixed(2)}x`);
    console.log(`svc refresh / git CLI cold clone time: ${(cold.refresh / cold.cli).toFixed(2)}x`);
  } finally {
    for (const c of children) c.kill();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
