import { diag, DiagLogLevel, type DiagLogger } from '@opentelemetry/api';
import type { Logger } from '../../domain/ports/logger.js';
import { scrubText } from '../../domain/security/scrub-credentials.js';

/**
 * Routes the SDK's own diagnostics (export failures, dropped spans, and with
 * OTEL_DEBUG everything) into the service log. Extra arguments are rendered
 * to text and scrubbed: they can carry an endpoint URL with credentials.
 */
export function routeDiagnostics(logger: Logger, debug: boolean, secrets: readonly string[]): () => void {
  const text = (message: string, args: unknown[]) =>
    scrubText([message, ...args.map((a) => (a instanceof Error ? a.message : typeof a === 'string' ? a : safeJson(a)))].join(' '), secrets);
  const sink: DiagLogger = {
    error: (m, ...a) => logger.error(`otel: ${text(m, a)}`),
    warn: (m, ...a) => logger.warn(`otel: ${text(m, a)}`),
    info: (m, ...a) => logger.info(`otel: ${text(m, a)}`),
    // OTEL_DEBUG asks for these lines, so they must show without also lowering LOG_LEVEL.
    debug: (m, ...a) => logger.info(`otel: ${text(m, a)}`),
    verbose: (m, ...a) => logger.info(`otel: ${text(m, a)}`),
  };
  diag.setLogger(sink, { logLevel: debug ? DiagLogLevel.DEBUG : DiagLogLevel.WARN, suppressOverrideMessage: true });
  return () => diag.disable();
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
