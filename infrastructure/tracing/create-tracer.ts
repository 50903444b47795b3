import type { Logger } from '../../domain/ports/logger.js';
import type { Tracer } from '../../domain/ports/tracer.js';
import type { TracingConfig } from '../config/tracing-config.js';
import type { LineSink } from './console-json-span-exporter.js';
import { NoopTracer } from './noop-tracer.js';

export interface TracerDependencies {
  logger: Logger;
  serviceVersion: string;
  /** Secret values from the configuration, scrubbed from every span. */
  secrets: readonly string[];
  consoleSink?: LineSink;
}

/**
 * The tracer OTEL_TRACING_ENABLED asks for. When enabled it is started here,
 * before any adapter or the app exists, so the http/undici instrumentations
 * are in place before the first outgoing call.
 */
export function createTracer(config: TracingConfig, deps: TracerDependencies): Tracer {
  if (!config.enabled) return new NoopTracer({ exporter: config.exporter, serviceName: config.serviceName });
  // Loaded only when enabled: a disabled service never loads the SDK, its exporters or instrumentations.
  const { OtelTracer } = require('./otel-tracer.js') as typeof import('./otel-tracer.js');
  return OtelTracer.start({ config, ...deps });
}
