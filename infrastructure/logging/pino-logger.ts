import pino from 'pino';
import type { Logger } from '../../domain/ports/logger.js';
import { scrubText } from '../../domain/security/scrub-credentials.js';

/** Header and field names whose values never reach a log line. */
export const REDACT_PATHS = [
  'authorization',
  'token',
  'gitToken',
  'password',
  'headers.authorization',
  'headers["x-svc-git-token"]',
  'req.headers.authorization',
  'req.headers["x-svc-git-token"]',
];

/** Structured JSON logs through pino; free-text messages are scrubbed of URL credentials. */
export class PinoLogger implements Logger {
  constructor(private readonly log: pino.Logger) {}

  static create(level: pino.LevelWithSilent, destination?: pino.DestinationStream): PinoLogger {
    const options: pino.LoggerOptions = {
      level,
      base: { service: 'svc' },
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    };
    return new PinoLogger(destination ? pino(options, destination) : pino(options));
  }

  debug(msg: string, fields?: Record<string, unknown>): void {
    if (this.log.isLevelEnabled('debug')) this.log.debug(fields ?? {}, scrubText(msg));
  }
  info(msg: string, fields?: Record<string, unknown>): void {
    if (this.log.isLevelEnabled('info')) this.log.info(fields ?? {}, scrubText(msg));
  }
  warn(msg: string, fields?: Record<string, unknown>): void {
    if (this.log.isLevelEnabled('warn')) this.log.warn(fields ?? {}, scrubText(msg));
  }
  error(msg: string, fields?: Record<string, unknown>): void {
    if (this.log.isLevelEnabled('error')) this.log.error(fields ?? {}, scrubText(msg));
  }
  child(fields: Record<string, unknown>): Logger {
    return new PinoLogger(this.log.child(fields));
  }
}
