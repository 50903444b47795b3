import { spawn } from 'node:child_process';
import path from 'node:path';

/** The built `svc` binary (package.json bin). */
export const CLI_PATH = path.join(__dirname, '..', '..', 'interfaces', 'cli', 'main.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI in a child process, asynchronously (the server under test
 * may live in this process and must keep serving). Only the variables given
 * reach the child: nothing of the developer's environment leaks in.
 */
export function runCli(args: readonly string[], env: Record<string, string | undefined> = {}, input?: string): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

/** The built CLI started as a long-running child (`svc sandbox`): its output so far, and its exit code once it ends. */
export function startCli(args: readonly string[], env: Record<string, string | undefined> = {}) {
  const child = spawn(process.execPath, [CLI_PATH, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}
