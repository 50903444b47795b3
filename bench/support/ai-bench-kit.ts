import type http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import { CLUSTER_READER_METHODS } from '../../domain/ports/cluster-reader.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';

/** The p-th percentile (0..100) of `xs`, nearest rank. */
export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '-');

/**
 * The time an in-process stand-in server spends answering: from the request
 * body fully received to `res.end` (its JSON parse, routing, reply build),
 * summed. Callers read `total` before and after a call: the difference is the
 * stand-in's share of that call, which is not svc's time. Node's HTTP parsing
 * on the server side is not separable and stays counted as svc's (the figures
 * are pessimistic by that much).
 */
export class StandInTimer {
  total = 0;
  requests = 0;
  /** Request body bytes of every request, in order (what svc sent on the wire). */
  readonly bytes: number[] = [];

  constructor(server: http.Server) {
    const listeners = server.listeners('request') as ((req: http.IncomingMessage, res: http.ServerResponse) => void)[];
    server.removeAllListeners('request');
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      let t0 = 0;
      let size = 0;
      req.on('data', (c: Buffer) => (size += c.length));
      req.once('end', () => {
        t0 = performance.now();
        this.bytes.push(size);
      });
      const end = res.end.bind(res) as (...a: unknown[]) => http.ServerResponse;
      res.end = ((...a: unknown[]) => {
        if (t0) this.total += performance.now() - t0;
        this.requests += 1;
        return end(...a);
      }) as typeof res.end;
      for (const l of listeners) l(req, res);
    });
  }
}

/** Per-call samples: wall time, the stand-in's share, and svc's own (wall minus share). */
export class CallSamples {
  readonly wall: number[] = [];
  readonly standIn: number[] = [];
  readonly own: number[] = [];

  clear(): void {
    for (const xs of [this.wall, this.standIn, this.own]) xs.length = 0;
  }

  async time<T>(timer: StandInTimer, work: () => Promise<T>): Promise<T> {
    const share0 = timer.total;
    const t0 = performance.now();
    try {
      return await work();
    } finally {
      const wall = performance.now() - t0;
      const share = timer.total - share0;
      this.wall.push(wall);
      this.standIn.push(share);
      this.own.push(wall - share);
    }
  }

  row(label: string): string {
    const p = (xs: number[], q: number) => ms(percentile(xs, q));
    return `| ${label} | ${this.wall.length} | ${p(this.wall, 50)} | ${p(this.wall, 95)} | ${p(this.standIn, 50)} | ${p(this.own, 50)} | ${p(this.own, 95)} |`;
  }

  static header(): string {
    return '| call | n | wall p50 ms | wall p95 ms | stand-in p50 ms | svc own p50 ms | svc own p95 ms |\n|---|---:|---:|---:|---:|---:|---:|';
  }
}

/** The LLM port with every `chat` timed against the chat stand-in's share. */
export function timedLlm(llm: LlmProvider, timer: StandInTimer, samples: CallSamples): LlmProvider {
  return { status: () => llm.status(), chat: (m, o) => samples.time(timer, () => llm.chat(m, o)) };
}

/** The read port with every method timed against the Kubernetes stand-in's share. */
export function timedReader(reader: ClusterReader, timer: StandInTimer, samples: CallSamples): ClusterReader {
  const view: Record<string, unknown> = {};
  for (const name of CLUSTER_READER_METHODS) {
    const method = (reader[name] as (...a: unknown[]) => unknown).bind(reader);
    view[name] = name === 'context' ? method : (...a: unknown[]) => samples.time(timer, () => method(...a) as Promise<unknown>);
  }
  return view as unknown as ClusterReader;
}
