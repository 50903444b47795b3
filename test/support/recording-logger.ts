import type { Logger } from '../../domain/ports/logger.js';

export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string;
  fields?: Record<string, unknown>;
}

/** A Logger that keeps every line (children share the parent's list). */
export class RecordingLogger implements Logger {
  constructor(readonly lines: LogLine[] = []) {}
  debug(msg: string, fields?: Record<string, unknown>) {
    this.lines.push({ level: 'debug', msg, fields });
  }
  info(msg: string, fields?: Record<string, unknown>) {
    this.lines.push({ level: 'info', msg, fields });
  }
  warn(msg: string, fields?: Record<string, unknown>) {
    this.lines.push({ level: 'warn', msg, fields });
  }
  error(msg: string, fields?: Record<string, unknown>) {
    this.lines.push({ level: 'error', msg, fields });
  }
  child(): Logger {
    return this;
  }
}
