import { spawn, type ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';

export interface LoadResult {
  label: string;
  rps: number;
  p99: number;
  non2xx: number;
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
