import { hrTimeToMicroseconds, ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { SpanKind } from '@opentelemetry/api';

/** The writable end spans are printed to; `process.stderr` by default. */
export interface LineSink {
  write(line: string): unknown;
}

/**
 * The `console` exporter: one JSON object per finished span and line.
 * It writes to stderr, not stdout, because stdout carries the MCP protocol
 * when svc runs as a stdio MCP server; JSON lines stay greppable and parseable.
 */
export class ConsoleJsonSpanExporter implements SpanExporter {
  private stopped = false;

  constructor(private readonly sink: LineSink = process.stderr) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    if (this.stopped) return done({ code: ExportResultCode.FAILED, error: new Error('exporter is shut down') });
    try {
      for (const span of spans) this.sink.write(`${JSON.stringify(toJson(span))}\n`);
      done({ code: ExportResultCode.SUCCESS });
    } catch (err) {
      done({ code: ExportResultCode.FAILED, error: err instanceof Error ? err : new Error(String(err)) });
    }
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
  }

  async forceFlush(): Promise<void> {}
}

function toJson(span: ReadableSpan) {
  const ctx = span.spanContext();
  return {
    traceId: ctx.traceId,
    spanId: ctx.spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    name: span.name,
    kind: SpanKind[span.kind],
    serviceName: span.resource.attributes['service.name'],
    startTimeUs: hrTimeToMicroseconds(span.startTime),
    durationUs: hrTimeToMicroseconds(span.duration),
    status: span.status,
    attributes: span.attributes,
    events: span.events.map((e) => ({ name: e.name, timeUs: hrTimeToMicroseconds(e.time), attributes: e.attributes })),
  };
}
