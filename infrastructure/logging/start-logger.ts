import { writeSync } from 'node:fs';
import type { Logger } from '../../domain/ports/logger.js';
import { scrubText } from '../../domain/security/scrub-credentials.js';
import type { ServerConfig } from '../config/server-config.js';

type Level = ServerConfig['logLevel'];
type Method = 'debug' | 'info' | 'warn' | 'error';

/** pino's numbers for its levels; `silent` is above every line. */
const LEVEL_NUMBERS: Record<Level, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };

/**
 * Field names the quick path leaves to pino: pino's own keys and the names
 * pino redacts (REDACT_PATHS: a top-level name, or the head of a nested path).
 */
const LEFT_TO_PINO = new Set(['level', 'time', 'service', 'msg', 'authorization', 'token', 'gitToken', 'password', 'headers', 'req']);

/** Fields whose line the quick path writes as pino would: flat, primitive, none of them redacted or pino's own. */
function quickFields(fields: Record<string, unknown> | undefined): string | undefined {
  let out = '';
  if (fields === undefined) return out;
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    if (value === undefined) continue;
    if (LEFT_TO_PINO.has(key)) return undefined;
    if (value !== null && typeof value !== 'string' && typeof value !== 'boolean' && (typeof value !== 'number' || !Number.isFinite(value))) return undefined;
    out += `,${JSON.stringify(key)}:${JSON.stringify(value)}`;
  }
  return out;
}

/** Writes a whole line to stdout at once, as pino's synchronous destination does (a full pipe is retried). */
function writeStdout(line: string): void {
  const bytes = Buffer.from(line);
  for (let at = 0; at < bytes.length;) {
    try {
      at += writeSync(1, bytes, at);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
    }
  }
}

/**
 * The server's logger from its first line: loading pino is a good part of the
 * start before listening, so until `full()` is called (the start loads it
 * right after listening) a line of flat, primitive fields is written here,
 * byte for byte as PinoLogger writes it (`{"level":30,"time":…,"service":
 * "svc",…fields,"msg":…}`, the message scrubbed). Any other line, a child,
 * or any line once pino is loaded goes through PinoLogger itself.
 */
export class StartLogger implements Logger {
  private pino?: Logger;

  constructor(
    private readonly level: Level,
    private readonly write: (line: string) => void = writeStdout,
    private readonly makePino: (level: Level) => Logger = (l) => {
      // loaded on demand: pino is what this class keeps off the path to listening
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { PinoLogger } = require('./pino-logger.js') as typeof import('./pino-logger.js');
      return PinoLogger.create(l);
    },
  ) {}

  /** The PinoLogger every line goes through from now on (loaded the first time). */
  full(): Logger {
    this.pino ??= this.makePino(this.level);
    return this.pino;
  }

  private line(method: Method, levelNumber: number, msg: string, fields?: Record<string, unknown>): void {
    if (this.pino) return this.pino[method](msg, fields);
    if (levelNumber < LEVEL_NUMBERS[this.level]) return;
    const quick = quickFields(fields);
    if (quick === undefined) return this.full()[method](msg, fields);
    this.write(`{"level":${levelNumber},"time":"${new Date().toISOString()}","service":"svc"${quick},"msg":${JSON.stringify(scrubText(msg))}}\n`);
  }

  debug(msg: string, fields?: Record<string, unknown>): void {
    this.line('debug', 20, msg, fields);
  }
  info(msg: string, fields?: Record<string, unknown>): void {
    this.line('info', 30, msg, fields);
  }
  warn(msg: string, fields?: Record<string, unknown>): void {
    this.line('warn', 40, msg, fields);
  }
  error(msg: string, fields?: Record<string, unknown>): void {
    this.line('error', 50, msg, fields);
  }
  child(fields: Record<string, unknown>): Logger {
    return this.full().child(fields);
  }
}
