import { hexId, type ReceivedSpan } from './received-span.js';

/** A LineSink for the console exporter that keeps every line and parses it as a span. */
export class ConsoleCapture {
  readonly lines: string[] = [];

  write(chunk: string): boolean {
    this.lines.push(...chunk.split('\n').filter(Boolean));
    return true;
  }

  get spans(): ReceivedSpan[] {
    return this.lines.map((line) => {
      const s = JSON.parse(line) as Record<string, any>;
      const code = Number(s.status?.code ?? 0);
      return {
        format: 'console',
        traceId: hexId(s.traceId, 16)!,
        spanId: hexId(s.spanId, 8)!,
        parentSpanId: hexId(s.parentSpanId, 8),
        name: s.name,
        kind: String(s.kind).toLowerCase(),
        serviceName: s.serviceName,
        attributes: s.attributes ?? {},
        status: code === 2 ? 'error' : code === 1 ? 'ok' : 'unset',
        statusMessage: s.status?.message,
        events: (s.events ?? []).map((e: { name: string; attributes?: Record<string, never> }) => ({ name: e.name, attributes: e.attributes ?? {} })),
      };
    });
  }

  rawText(): string {
    return this.lines.join('\n');
  }
}
