import type { Attributes, AttributeValue } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { scrubUrl, textScrubber } from '../../domain/security/scrub-credentials.js';

/**
 * Sits in front of the real exporter and hands it a scrubbed copy of every
 * span: URL credentials and known secret values are replaced by `***` in the
 * name, every string attribute (ours and the HTTP instrumentations'), event
 * attributes and the status message. Done at export time, in the batch, so
 * the request path pays nothing and spans dropped by a full queue cost nothing.
 *
 * The value-length limit is applied here, after scrubbing, and not by the SDK
 * (whose limit runs when an attribute is set): a secret cut in half by an
 * earlier truncation would no longer be recognised and its prefix would leak.
 */
export class ScrubbingSpanExporter implements SpanExporter {
  private readonly scrub: (text: string) => string;

  constructor(
    private readonly next: SpanExporter,
    secrets: readonly string[],
    private readonly valueLengthLimit?: number,
  ) {
    this.scrub = textScrubber(secrets);
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.next.export(
      spans.map((s) => this.scrubbed(s)),
      done,
    );
  }

  forceFlush(): Promise<void> {
    return this.next.forceFlush?.() ?? Promise.resolve();
  }

  shutdown(): Promise<void> {
    return this.next.shutdown();
  }

  /**
   * `url.query` (a query string, with or without its `?`) and `http.target`
   * (path and query) carry no scheme, so scrubText would not see them as URLs.
   */
  private text(value: string, key = ''): string {
    let clean = this.scrub(value);
    if (key.endsWith('.query') && !clean.startsWith('?')) clean = scrubUrl(`?${clean}`).slice(1);
    else if (key.endsWith('.query') || key === 'http.target') clean = scrubUrl(clean);
    return this.valueLengthLimit !== undefined && clean.length > this.valueLengthLimit ? clean.slice(0, this.valueLengthLimit) : clean;
  }

  private value(key: string, value: AttributeValue | undefined): AttributeValue | undefined {
    if (typeof value === 'string') return this.text(value, key);
    if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? this.text(v, key) : v)) as AttributeValue;
    return value;
  }

  private attributes(attributes: Attributes): Attributes {
    const out: Attributes = {};
    for (const [key, value] of Object.entries(attributes)) out[key] = this.value(key, value);
    return out;
  }

  private event(event: TimedEvent): TimedEvent {
    return { ...event, name: this.text(event.name), attributes: event.attributes && this.attributes(event.attributes) };
  }

  private scrubbed(span: ReadableSpan): ReadableSpan {
    return {
      name: this.text(span.name),
      kind: span.kind,
      spanContext: () => span.spanContext(),
      parentSpanContext: span.parentSpanContext,
      startTime: span.startTime,
      endTime: span.endTime,
      status: span.status.message === undefined ? span.status : { ...span.status, message: this.text(span.status.message) },
      attributes: this.attributes(span.attributes),
      links: span.links,
      events: span.events.map((e) => this.event(e)),
      duration: span.duration,
      ended: span.ended,
      resource: span.resource,
      instrumentationScope: span.instrumentationScope,
      droppedAttributesCount: span.droppedAttributesCount,
      droppedEventsCount: span.droppedEventsCount,
      droppedLinksCount: span.droppedLinksCount,
    };
  }
}
