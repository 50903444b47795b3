import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/**
 * Delegates to the real exporter and remembers whether the last export
 * worked, so the `version` tool can say that spans are not arriving.
 */
export class StatusTrackingExporter implements SpanExporter {
  private lastError: string | undefined;
  private exportedSpans = 0;

  constructor(
    private readonly inner: SpanExporter,
    /** Makes an error message safe to show (credentials removed). */
    private readonly scrub: (text: string) => string,
    private readonly onFailure: (message: string) => void = () => {},
  ) {}

  /** undefined while exports succeed; otherwise why the last one failed (scrubbed). */
  failure(): string | undefined {
    return this.lastError;
  }

  exported(): number {
    return this.exportedSpans;
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code === ExportResultCode.SUCCESS) {
        this.lastError = undefined;
        this.exportedSpans += spans.length;
      } else {
        this.lastError = this.scrub(result.error?.message ?? 'export failed');
        this.onFailure(this.lastError);
      }
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
