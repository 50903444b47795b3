import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { projectRoot } from '../../infrastructure/project-root.js';

const MAIN = path.join(projectRoot(), 'dist', 'interfaces', 'main.js');

/**
 * Starts the built server as a real process with only PATH, instance metadata off (as in every test) and `env`;
 * stdout and stderr are collected together. `nodeArgs` go before the script (a `-r` preload).
 */
export function runSvc(env: Record<string, string>, nodeArgs: readonly string[] = []) {
  const child = spawn(process.execPath, [...nodeArgs, MAIN], {
    // a 30 ms settle window for svc's verdict after a write (docs/verify.md): no test waits 60 s
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', AWS_EC2_METADATA_DISABLED: 'true', SVC_VERIFY_WINDOW_MS: '30', SVC_ROLLOUT_POLL_MS: '50', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => out };
}

/** Polls `predicate` every 25 ms for up to 5 s. */
export async function waitFor(predicate: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !predicate(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!predicate()) throw new Error(`timed out waiting for ${what}`);
}

/**
 * A replica: the built server as a real process on 127.0.0.1, port 0, with
 * its own fresh data directory and `env`, once it listens. The caller kills
 * `p.child` and removes `dir`.
 */
export async function startReplica(
  env: Record<string, string>,
  nodeArgs: readonly string[] = [],
): Promise<{ url: string; dir: string; p: ReturnType<typeof runSvc> }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-replica-'));
  const p = runSvc({ HOST: '127.0.0.1', PORT: '0', SVC_DATA_DIR: dir, ...env }, nodeArgs);
  const listening = () => /"url":"([^"]+)"/.exec(p.output())?.[1];
  await waitFor(() => listening() !== undefined, 'svc listening');
  return { url: listening()!, dir, p };
}
