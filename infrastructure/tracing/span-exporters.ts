import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { TracingConfig } from '../config/tracing-config.js';
import { ConsoleJsonSpanExporter, type LineSink } from './console-json-span-exporter.js';

/** How long one export may take before it is abandoned, milliseconds. */
export const EXPORT_TIMEOUT_MS = 10_000;

/**
 * jaeger-client sends basic auth from separate fields and ignores URL
 * userinfo, so credentials written into the endpoint URL are moved there.
 */
function jaegerOptions(endpoint: string) {
  const url = new URL(endpoint);
  const username = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = '';
  url.password = '';
  return { endpoint: url.toString(), ...(username && password ? { username, password } : {}), flushTimeout: EXPORT_TIMEOUT_MS };
}

/**
 * An exporter made by its first export, seconds after the start (the batch
 * exports every few seconds): its package and their transport and protobuf
 * libraries load then, not during the start. Nothing to flush or shut down
 * before that.
 */
class ExporterOnFirstExport implements SpanExporter {
  private made: SpanExporter | undefined;

  constructor(private readonly make: () => SpanExporter) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    (this.made ??= this.make()).export(spans, done);
  }

  forceFlush(): Promise<void> {
    return this.made?.forceFlush?.() ?? Promise.resolve();
  }

  shutdown(): Promise<void> {
    return this.made?.shutdown() ?? Promise.resolve();
  }
}

/**
 * The exporter OTEL_EXPORTER_TYPE names, configured from the validated config
 * only. Each exporter package is loaded only when chosen, and then by the
 * first export (the Jaeger one parses its thrift IDL on load).
 */
export function createSpanExporter(config: TracingConfig, consoleSink?: LineSink): SpanExporter {
  const exporter = config.exporter;
  if (exporter === 'console') return new ConsoleJsonSpanExporter(consoleSink);
  return new ExporterOnFirstExport(() => networkExporter(config, exporter));
}

/** The exporter that sends spans to a collector (OTLP, Zipkin or Jaeger). */
function networkExporter(config: TracingConfig, exporter: Exclude<TracingConfig['exporter'], 'console'>): SpanExporter {
  switch (exporter) {
    case 'otlp': {
      const options = { url: config.endpoint!, timeoutMillis: EXPORT_TIMEOUT_MS };
      if (config.otlpProtocol === 'http/json') {
        const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
        return new OTLPTraceExporter(options);
      }
      const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto');
      return new OTLPTraceExporter(options);
    }
    case 'zipkin': {
      const { ZipkinExporter } = require('@opentelemetry/exporter-zipkin') as typeof import('@opentelemetry/exporter-zipkin');
      return new ZipkinExporter({ url: config.endpoint!, serviceName: config.serviceName });
    }
    case 'jaeger': {
      const { JaegerExporter } = require('@opentelemetry/exporter-jaeger') as typeof import('@opentelemetry/exporter-jaeger');
      return new JaegerExporter(jaegerOptions(config.endpoint!));
    }
  }
}
