import type { Logger } from '../../domain/ports/logger.js';

export interface LogLine {
  level: string;
  msg: string;
  fields: Record<string, unknown>;
}

/** A Logger that keeps every line (with inherited child fields) for assertions. */
export class CapturingLogger implements Logger {
  constructor(
    readonly lines: LogLine[] = [],
    private readonly bound: Record<string, unknown> = {},
  ) {}
  private push(level: string, msg: string, fields?: Record<string, unknown>) {
    this.lines.push({ level, msg, fields: { ...this.bound, ...(fields ?? {}) } });
  }
  debug(msg: string, fields?: Record<string, unknown>) {
    this.push('debug', msg, fields);
  }
  info(msg: string, fields?: Record<string, unknown>) {
    this.push('info', msg, fields);
  }
  warn(msg: string, fields?: Record<string, unknown>) {
    this.push('warn', msg, fields);
  }
  error(msg: string, fields?: Record<string, unknown>) {
    this.push('error', msg, fields);
  }
  child(fields: Record<string, unknown>): Logger {
    return new CapturingLogger(this.lines, { ...this.bound, ...fields });
  }
  /** Everything logged, as one string, for canary searches. */
  text(): string {
    return JSON.stringify(this.lines);
  }
}
