import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { builtinPromptsDir } from '../../infrastructure/config/prompts-config.js';
import { loadConfig, type Config } from '../../infrastructure/config/config.js';
import autocannon from 'autocannon';

export interface LoadResult {
  label: string;
  rps: number;
  p99: number;
  non2xx: number;
}

/** The built-in prompt files, by path relative to their folder, with their text and permission bits: a repository's worth of prompts. */
export function builtinPromptFiles(): Record<string, { text: string; mode: number }> {
  const files: Record<string, { text: string; mode: number }> = {};
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      const stat = statSync(full);
      if (stat.isDirectory()) walk(full, r);
      else files[r] = { text: readFileSync(full, 'utf8'), mode: stat.mode & 0o777 };
    }
  };
  walk(builtinPromptsDir(), '');
  return files;
}

/** A server's config for a bench: loopback, port 0, quiet, rate limits off (a bench measures throughput, not the budget), the bearer `token`, then `env`. */
export function benchConfig(token: string, env: Record<string, string> = {}): Config {
  return loadConfig({ ...process.env, HOST: '127.0.0.1', PORT: '0', SVC_AUTH_TOKEN: token, LOG_LEVEL: 'silent', SVC_RATE_LIMIT_ENABLED: 'false', ...env });
}

/** Runs a child process of this same script in a role; resolves with the URL it prints. */
export function startRole(script: string, role: string, env: Record<string, string> = {}): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [script, role], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /^URL (\S+)$/m.exec(out);
      if (m) resolve({ url: m[1], child });
    });
    child.once('exit', (code) => reject(new Error(`${role} exited with ${code}`)));
  });
}

/** A bounded load run on loopback (duration seconds, fixed connections). */
export async function load(label: string, opts: autocannon.Options): Promise<LoadResult> {
  const r = await autocannon({ connections: 32, duration: 5, ...opts });
  return { label, rps: r.requests.average, p99: r.latency.p99, non2xx: r.non2xx + r.errors };
}

export function printTable(rows: LoadResult[]): void {
  console.log('| run | req/s | p99 ms | errors |');
  console.log('|---|---:|---:|---:|');
  for (const r of rows) console.log(`| ${r.label} | ${r.rps.toFixed(0)} | ${r.p99} | ${r.non2xx} |`);
}

export function ratio(a: LoadResult, b: LoadResult): string {
  return `${((a.rps / b.rps) * 100).toFixed(1)}%`;
}

/** The run with the median throughput. */
export function median(runs: LoadResult[]): LoadResult {
  return [...runs].sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)];
}
