import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runSvc, waitFor } from './svc-process.js';

type Json = Record<string, any>;

/** One svc process of a replica set: its base URL and the process, to kill it mid-work. */
export interface Replica {
  url: string;
  p: ReturnType<typeof runSvc>;
  /** SIGKILL, resolved once the process has exited. */
  kill(): Promise<void>;
}

/**
 * Real svc processes sharing one Redis (and whatever else `env` names): each
 * replica gets its own data directory, so only Redis is shared, as on
 * several pods. `stop` kills what is left and removes the directories.
 */
export class ReplicaProcesses {
  private readonly dirs: string[] = [];
  private readonly procs: ReturnType<typeof runSvc>[] = [];

  /** `env` of every replica started: token, REDIS_URL, its prefix, the stand-ins. */
  constructor(private readonly env: Record<string, string>) {}

  async start(extra: Record<string, string> = {}): Promise<Replica> {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-replica-'));
    this.dirs.push(dir);
    const p = runSvc({ HOST: '127.0.0.1', PORT: '0', SVC_DATA_DIR: dir, ...this.env, ...extra });
    this.procs.push(p);
    await waitFor(() => /"url":"([^"]+)"/.test(p.output()), 'svc listening');
    const kill = async () => {
      p.child.kill('SIGKILL');
      await p.exited;
    };
    return { url: /"url":"([^"]+)"/.exec(p.output())![1], p, kill };
  }

  stop(): void {
    for (const p of this.procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    for (const d of this.dirs) rmSync(d, { recursive: true, force: true });
  }
}

/** One JSON request to a replica, answered with its status, body and headers. */
export async function callJson(
  url: string,
  method: string,
  pathname: string,
  headers: Record<string, string>,
  body?: Json,
): Promise<{ status: number; json: Json; headers: Headers }> {
  const res = await fetch(`${url}${pathname}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: (await res.json()) as Json, headers: res.headers };
}
