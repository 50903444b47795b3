import type { ActiveSpan, SpanAttributes, TraceCarrier, Tracer, TracingStatus } from '../../domain/ports/tracer.js';

const NOOP_SPAN: ActiveSpan = { setAttributes() {}, recordError() {} };

/**
 * The tracer when OTEL_TRACING_ENABLED is not true: runs the function and
 * records nothing. No OpenTelemetry module is loaded and no port is wrapped,
 * so a disabled tracer costs one function call per span.
 */
export class NoopTracer implements Tracer {
  constructor(private readonly configured: { exporter: string; serviceName: string } = { exporter: 'none', serviceName: 'svc-mcp' }) {}

  inSpan<T>(_name: string, _attributes: SpanAttributes, fn: (span: ActiveSpan) => Promise<T>): Promise<T> {
    return fn(NOOP_SPAN);
  }
  inChildSpan<T>(_name: string, _attributes: SpanAttributes, fn: (span: ActiveSpan) => Promise<T>): Promise<T> {
    return fn(NOOP_SPAN);
  }
  withRemoteParent<T>(_carrier: TraceCarrier, fn: () => Promise<T>): Promise<T> {
    return fn();
  }
  status(): TracingStatus {
    return {
      enabled: false,
      exporter: this.configured.exporter,
      serviceName: this.configured.serviceName,
      status: 'disabled (set OTEL_TRACING_ENABLED=true to enable)',
    };
  }
  async shutdown(): Promise<void> {}
}
