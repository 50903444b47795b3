import { bool, ConfigError, httpUrl, int, num, oneOf, str, type Env } from './env-parsers.js';

export const TRACING_EXPORTERS = ['console', 'otlp', 'jaeger', 'zipkin'] as const;
export type TracingExporterType = (typeof TRACING_EXPORTERS)[number];

export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** Collector defaults of the OpenTelemetry specification for the two exporters that have one. */
export const DEFAULT_ZIPKIN_ENDPOINT = 'http://localhost:9411/api/v2/spans';
export const DEFAULT_JAEGER_ENDPOINT = 'http://localhost:14268/api/traces';

export interface TracingConfig {
  enabled: boolean;
  serviceName: string;
  exporter: TracingExporterType;
  /** Where spans are sent, as the exporter needs it (OTLP: the `/v1/traces` URL); undefined for console. */
  endpoint?: string;
  otlpProtocol: OtlpProtocol;
  /** Ratio of new traces recorded, 0..1; a caller's sampled flag wins (parent-based). */
  samplingProbability: number;
  /** Routes the OpenTelemetry SDK's own diagnostics to the log at debug level. */
  debug: boolean;
  /** Longest string attribute value kept, in characters; undefined means no limit (SPEC.md). */
  attributeValueLengthLimit?: number;
}

/** OTEL_EXPORTER_OTLP_ENDPOINT is a base URL: the trace path is appended, as the OTLP specification says. */
function otlpTracesUrl(base: string): string {
  const u = new URL(base);
  if (!/\/v1\/traces\/?$/.test(u.pathname)) u.pathname = `${u.pathname.replace(/\/+$/, '')}/v1/traces`;
  return u.toString();
}

/** Tracing settings of SPEC.md's table, plus the standard Zipkin/Jaeger endpoints and attribute length limit. */
export function parseTracingConfig(env: Env): TracingConfig {
  const enabled = bool(env, 'OTEL_TRACING_ENABLED', false);
  const exporter = oneOf(env, 'OTEL_EXPORTER_TYPE', TRACING_EXPORTERS, 'console');
  const protocol = str(env, 'OTEL_EXPORTER_OTLP_PROTOCOL');
  if (protocol === 'grpc') {
    throw new ConfigError('OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc is not supported by svc: use http/protobuf (the default) or http/json');
  }
  const otlpProtocol = oneOf(env, 'OTEL_EXPORTER_OTLP_PROTOCOL', OTLP_PROTOCOLS, 'http/protobuf');
  const otlpBase = httpUrl(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const zipkin = httpUrl(env, 'OTEL_EXPORTER_ZIPKIN_ENDPOINT');
  const jaeger = httpUrl(env, 'OTEL_EXPORTER_JAEGER_ENDPOINT');
  if (enabled && exporter === 'otlp' && otlpBase === undefined) {
    throw new ConfigError(
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'is required when OTEL_EXPORTER_TYPE=otlp: set it to the collector base URL, for example http://otel-collector:4318',
    );
  }
  const endpoints: Record<TracingExporterType, string | undefined> = {
    console: undefined,
    otlp: otlpBase && otlpTracesUrl(otlpBase),
    zipkin: zipkin ?? DEFAULT_ZIPKIN_ENDPOINT,
    jaeger: jaeger ?? DEFAULT_JAEGER_ENDPOINT,
  };
  const limit = str(env, 'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT');
  return {
    enabled,
    serviceName: str(env, 'OTEL_SERVICE_NAME') ?? 'svc-mcp',
    exporter,
    endpoint: endpoints[exporter],
    otlpProtocol,
    samplingProbability: num(env, 'OTEL_SAMPLING_PROBABILITY', 1, 0, 1),
    debug: bool(env, 'OTEL_DEBUG', false),
    attributeValueLengthLimit: limit === undefined ? undefined : int(env, 'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT', 0, 1, Number.MAX_SAFE_INTEGER),
  };
}
