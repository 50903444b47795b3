import { AsyncLocalStorage } from 'node:async_hooks';
import type { ActiveSpan, SpanAttributes, Tracer, TracingStatus } from '../../domain/ports/tracer.js';

export interface RecordedSpan {
  name: string;
  attributes: SpanAttributes;
  parent?: RecordedSpan;
  error?: unknown;
  ended: boolean;
}

/** A Tracer fake that records the span tree (parents follow the async call chain). */
export class RecordingTracer implements Tracer {
  readonly spans: RecordedSpan[] = [];
  private readonly current = new AsyncLocalStorage<RecordedSpan>();

  async inSpan<T>(name: string, attributes: SpanAttributes, fn: (span: ActiveSpan) => Promise<T>): Promise<T> {
    const span: RecordedSpan = { name, attributes: { ...attributes }, parent: this.current.getStore(), ended: false };
    this.spans.push(span);
    const active: ActiveSpan = {
      setAttributes: (a) => Object.assign(span.attributes, a),
      recordError: (e) => (span.error = e),
    };
    try {
      return await this.current.run(span, () => fn(active));
    } catch (err) {
      span.error = err;
      throw err;
    } finally {
      span.ended = true;
    }
  }
  status(): TracingStatus {
    return { enabled: true, exporter: 'memory', serviceName: 'svc-test', status: 'active' };
  }
  async shutdown(): Promise<void> {}
}
