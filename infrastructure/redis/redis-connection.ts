import type { Redis as RedisClient, RedisOptions } from 'ioredis';
import { DependencyError } from '../../domain/errors.js';
import type { Logger } from '../../domain/ports/logger.js';
import type { SpanAttributes, Tracer } from '../../domain/ports/tracer.js';
import { scrubText, scrubUrl } from '../../domain/security/scrub-credentials.js';

/** How long a command may take before it fails (a lost Redis must never hang a request). */
const COMMAND_TIMEOUT_MS = 2000;

/** One Redis call as a span names it: the command and what it touches, never a key (keys carry ids). */
export interface RedisCall {
  /** The command sent: GET, SET, DEL, EVAL, PING... (`db.operation.name`). */
  command: string;
  /** The kind of key, low-cardinality: session, source, blob, rl, scan (`db.query.summary` is `<command> <target>`). */
  target: string;
  /** For the error message: "Redis at ... failed to <what>". */
  what: string;
}

export interface RedisStatus {
  connected: boolean;
  /** The URL without credentials. */
  url: string;
  error?: string;
}

/**
 * One ioredis client for the process, shared by every Redis adapter. Commands
 * fail fast while Redis is unreachable (no offline queue, 2 s timeout) with
 * DependencyError('redis') naming Redis; the client keeps reconnecting in the
 * background, so svc uses Redis again when it is back, without a restart.
 * Credentials never reach a message or a log line.
 */
export class RedisConnection {
  readonly client: RedisClient;
  readonly where: string;
  private readonly secrets: string[];
  private up = false;
  /** Attributes every Redis span carries: where (no credential), which database. */
  private readonly spanBase: SpanAttributes;

  constructor(
    url: string,
    readonly prefix: string,
    private readonly logger: Logger,
    /** Redis calls made inside a recorded tool run become its child spans; outside one (probes, rate limits) nothing is recorded. */
    private readonly tracer?: Tracer,
  ) {
    // loaded only when REDIS_URL is set
    const { Redis } = require('ioredis') as typeof import('ioredis');
    const parsed = new URL(url);
    this.where = scrubUrl(url);
    this.secrets = [decodeURIComponent(parsed.password), decodeURIComponent(parsed.username)].filter((s) => s.length >= 4);
    this.spanBase = {
      'db.system.name': 'redis',
      'db.namespace': /^\/\d+$/.test(parsed.pathname) ? parsed.pathname.slice(1) : '0',
      'server.address': parsed.hostname,
      'server.port': parsed.port ? Number(parsed.port) : 6379,
      'svc.redis.key_prefix': prefix,
    };
    const options: RedisOptions = {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: COMMAND_TIMEOUT_MS,
      commandTimeout: COMMAND_TIMEOUT_MS,
      retryStrategy: (times) => Math.min(100 * times, 2000),
      ...(parsed.protocol === 'rediss:' ? { tls: { servername: parsed.hostname } } : {}),
    };
    this.client = new Redis(url, options);
    this.client.on('ready', () => {
      if (!this.up) this.logger.info('redis connected', { redis: this.where });
      this.up = true;
    });
    this.client.on('error', (e: Error) => {
      if (this.up) this.logger.warn('redis connection lost; svc keeps reconnecting', { redis: this.where, error: this.clean(e.message) });
      this.up = false;
    });
    this.client.on('end', () => (this.up = false));
  }

  /**
   * Runs one Redis call, as a client span under the current tool run (when one
   * is recorded); any failure is DependencyError('redis') with a message that
   * names Redis and carries no credential.
   */
  run<T>(call: RedisCall, fn: (client: RedisClient) => Promise<T>): Promise<T> {
    if (!this.tracer) return this.call(call, fn);
    const summary = `${call.command} ${call.target}`;
    return this.tracer.inChildSpan(
      summary,
      { ...this.spanBase, 'db.operation.name': call.command, 'db.query.summary': summary },
      () => this.call(call, fn),
      'client',
    );
  }

  private async call<T>(call: RedisCall, fn: (client: RedisClient) => Promise<T>): Promise<T> {
    try {
      return await fn(this.client);
    } catch (e) {
      throw new DependencyError('redis', `Redis at ${this.where} failed to ${call.what}: ${this.clean(e instanceof Error ? e.message : String(e))}`);
    }
  }

  /** PING, bounded; never throws. A probe, not an operation on the data: never a span. */
  async status(): Promise<RedisStatus> {
    try {
      await this.call({ command: 'PING', target: 'server', what: 'answer PING' }, (c) => c.ping());
      return { connected: true, url: this.where };
    } catch (e) {
      return { connected: false, url: this.where, error: (e as Error).message };
    }
  }

  /**
   * Resolves true once the connection is ready (at once when it is), false
   * when it is not within `timeoutMs`; never throws. Start-up waits on it so
   * nothing touches Redis before the connection is up (with the offline queue
   * off, a command sent earlier fails at once).
   */
  ready(timeoutMs: number): Promise<boolean> {
    if (this.client.status === 'ready') return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.client.off('ready', onReady);
        resolve(ok);
      };
      const onReady = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.client.on('ready', onReady);
    });
  }

  key(...parts: string[]): string {
    return `${this.prefix}${parts.join(':')}`;
  }

  async close(): Promise<void> {
    this.client.disconnect(false);
  }

  private clean(message: string): string {
    return scrubText(message, this.secrets).slice(0, 300);
  }
}
