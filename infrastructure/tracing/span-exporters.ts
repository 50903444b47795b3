import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
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
 * The exporter OTEL_EXPORTER_TYPE names, configured from the validated config
 * only. Each exporter package is loaded only when chosen (the Jaeger one parses
 * its thrift IDL on load).
 */
export function createSpanExporter(config: TracingConfig, consoleSink?: LineSink): SpanExporter {
  switch (config.exporter) {
    case 'console':
      return new ConsoleJsonSpanExporter(consoleSink);
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
