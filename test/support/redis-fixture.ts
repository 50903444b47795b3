import { existsSync } from 'node:fs';
import type { Context } from 'mocha';
import { RedisConnection } from '../../infrastructure/redis/redis-connection.js';
import { CapturingLogger } from './capturing-logger.js';
import { REDIS_SERVER, RedisServer } from './redis-server.js';

/** Skips the suite where Debian's redis-server is not installed; in CI (.ci/run installs it) its absence fails. */
export function requireRedisServer(ctx: Context): void {
  if (existsSync(REDIS_SERVER)) return;
  if (process.env.CI) throw new Error(`${REDIS_SERVER} is missing: .ci/run installs Debian's redis-server`);
  ctx.skip();
}

/** A connection that has reached `ready` (the client does not queue commands while it connects). */
export async function connectRedis(url: string, prefix = 'svc-test:', logger = new CapturingLogger()): Promise<RedisConnection> {
  const conn = new RedisConnection(url, prefix, logger);
  await waitReady(conn);
  return conn;
}

export async function waitReady(conn: RedisConnection, timeoutMs = 10000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (conn.client.status !== 'ready') {
    if (Date.now() > deadline) throw new Error(`redis client not ready: ${conn.client.status}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Mocha hooks for a suite on one real redis-server and one connection with
 * `prefix`: started before the suite (skipped where redis-server is not
 * installed), stopped after it. Read `server` and `conn` inside tests.
 */
export function useRedis(prefix: string, options: Parameters<typeof RedisServer.start>[0] = {}): { server: RedisServer; conn: RedisConnection } {
  const handle = {} as { server: RedisServer; conn: RedisConnection };
  before(async function () {
    requireRedisServer(this);
    handle.server = await RedisServer.start(options);
    handle.conn = await connectRedis(handle.server.url, prefix);
  });
  after(async () => {
    await handle.conn?.close();
    await handle.server?.stop();
  });
  return handle;
}
