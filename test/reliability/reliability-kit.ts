import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { runSvc, waitFor } from '../support/svc-process.js';

/** Figures of the whole reliability run, printed once at its end. */
export const figures = {
  requestsServed: 0,
  non2xx: 0,
  errors: 0,
  faultsInjected: 0,
  cleanFailures: 0,
  rows: [] as { test: string; figure: string }[],
};

export function record(test: string, figure: string): void {
  figures.rows.push({ test, figure });
}

// a root-level hook (registered once, when the first reliability file loads it)
after(() => {
  const lines = [
    '',
    'reliability figures',
    `  requests served      ${figures.requestsServed}`,
    `  non-2xx under load   ${figures.non2xx}`,
    `  transport errors     ${figures.errors}`,
    `  faults injected      ${figures.faultsInjected}`,
    `  clean failures seen  ${figures.cleanFailures}`,
    ...figures.rows.map((r) => `  ${r.test.padEnd(34)} ${r.figure}`),
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
});

/**
 * A TCP forwarder in front of a dependency: `kill()` stops listening and
 * resets every connection through it (the dependency as good as dead, mid-request
 * included); `restart()` listens again on the same port.
 */
export class FaultProxy {
  private server?: net.Server;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  constructor(private readonly targetPort: number) {}

  static async start(targetPort: number): Promise<FaultProxy> {
    const p = new FaultProxy(targetPort);
    await p.listen();
    return p;
  }

  get live(): number {
    return this.sockets.size;
  }

  private async listen(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, '127.0.0.1');
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async kill(): Promise<void> {
    figures.faultsInjected++;
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.resetAndDestroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async restart(): Promise<void> {
    await this.listen();
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Resident set size of a process in KiB, from /proc/<pid>/status. */
export function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]);
}

export const LOAD_TOKEN = 'reliability-bearer-token-0123456789';

/** The built server as a real process on 127.0.0.1:0; resolves once the app serves (`svc ready`: it listens, answering /healthz only, before that). */
export async function startSvcProcess(env: Record<string, string>) {
  const p = runSvc({ HOST: '127.0.0.1', PORT: '0', SVC_AUTH_TOKEN: LOAD_TOKEN, ...env });
  try {
    await waitFor(() => /svc ready/.test(p.output()) || p.child.exitCode !== null, 'svc ready');
  } catch (e) {
    p.child.kill('SIGKILL');
    throw e;
  }
  const m = /"url":"([^"]+)"/.exec(p.output());
  if (!m) throw new Error(`svc did not start: ${p.output().slice(-2000)}`);
  return { ...p, url: m[1], pid: p.child.pid! };
}

export interface LoadResult {
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  rps: number;
  p99: number;
  statuses: Record<string, number>;
}

/** autocannon for `seconds` with `connections`, bounded also by `maxRequests`; folds the totals into the figures. */
export async function load(opts: {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  seconds: number;
  connections: number;
  maxRequests?: number;
}): Promise<LoadResult> {
  const result = await autocannon({
    url: opts.url,
    method: opts.method ?? 'GET',
    headers: opts.headers,
    body: opts.body,
    duration: opts.seconds,
    connections: opts.connections,
    amount: opts.maxRequests,
    timeout: 10,
  });
  const statuses: Record<string, number> = {};
  for (const k of ['1xx', '2xx', '3xx', '4xx', '5xx'] as const) if (result[k]) statuses[k] = result[k];
  const requests = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
  figures.requestsServed += requests;
  figures.errors += result.errors;
  return {
    requests,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    rps: Math.round(result.requests.average),
    p99: result.latency.p99,
    statuses,
  };
}
