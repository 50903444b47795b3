import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const REDIS_SERVER = '/usr/bin/redis-server';

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * Debian's real redis-server on 127.0.0.1 and a free port, its data in a
 * temporary folder (append-only on by default), stopped by `stop()`.
 * `restart()` stops it (SIGTERM, or SIGKILL with `{ kill: true }`) and starts
 * it again on the same port and folder, so clients can reconnect.
 */
export class RedisServer {
  private child?: ChildProcess;
  private constructor(
    readonly port: number,
    readonly dir: string,
    private readonly options: { appendonly: boolean; appendfsync: 'always' | 'everysec'; password?: string },
  ) {}

  get url(): string {
    return `redis://${this.options.password ? `:${encodeURIComponent(this.options.password)}@` : ''}127.0.0.1:${this.port}`;
  }

  /** `appendfsync` defaults to always (the tests' durability checks); the bench also measures everysec. */
  static async start(options: { appendonly?: boolean; appendfsync?: 'always' | 'everysec'; password?: string } = {}): Promise<RedisServer> {
    const server = new RedisServer(await freePort(), mkdtempSync(path.join(tmpdir(), 'svc-redis-')), {
      appendonly: options.appendonly ?? true,
      appendfsync: options.appendfsync ?? 'always',
      password: options.password,
    });
    await server.launch();
    return server;
  }

  private async launch(): Promise<void> {
    const args = [
      '--port',
      String(this.port),
      '--bind',
      '127.0.0.1',
      '--dir',
      this.dir,
      '--save',
      '',
      '--appendonly',
      this.options.appendonly ? 'yes' : 'no',
      '--appendfsync',
      this.options.appendfsync,
      '--daemonize',
      'no',
      '--loglevel',
      'warning',
    ];
    if (this.options.password) args.push('--requirepass', this.options.password);
    const child = spawn(REDIS_SERVER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const deadline = Date.now() + 10000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`redis-server exited: ${output}`);
      const ok = await new Promise<boolean>((resolve) => {
        const s = net.connect(this.port, '127.0.0.1', () => (s.destroy(), resolve(true)));
        s.on('error', () => resolve(false));
      });
      if (ok) return;
      if (Date.now() > deadline) throw new Error(`redis-server did not listen: ${output}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async halt(options: { kill?: boolean } = {}): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(options.kill ? 'SIGKILL' : 'SIGTERM');
    await exited;
  }

  async restart(options: { kill?: boolean } = {}): Promise<void> {
    await this.halt(options);
    await this.launch();
  }

  async stop(): Promise<void> {
    await this.halt();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
