import type { ActiveSpan, SpanAttributes, Tracer, TracingStatus } from '../../domain/ports/tracer.js';

const NOOP_SPAN: ActiveSpan = { setAttributes() {}, recordError() {} };

/** The tracer when OTEL_TRACING_ENABLED is not true: runs the function, records nothing. */
export class NoopTracer implements Tracer {
  inSpan<T>(_name: string, _attributes: SpanAttributes, fn: (span: ActiveSpan) => Promise<T>): Promise<T> {
    return fn(NOOP_SPAN);
  }
  status(): TracingStatus {
    return { enabled: false, exporter: 'none', serviceName: 'svc-mcp', status: 'disabled (set OTEL_TRACING_ENABLED=true to enable)' };
  }
  async shutdown(): Promise<void> {}
}
