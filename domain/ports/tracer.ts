/** Attribute values a span accepts. */
export type SpanAttributeValue = string | number | boolean | string[] | number[];
export type SpanAttributes = Record<string, SpanAttributeValue | undefined>;

/** A span handed to the function run inside `Tracer.inSpan`. */
export interface ActiveSpan {
  /** Adds or overwrites attributes; undefined values are ignored. The adapter scrubs URL credentials and known secrets from strings before export. */
  setAttributes(attributes: SpanAttributes): void;
  /** Records a failure on the span (status error plus an exception event). */
  recordError(error: unknown): void;
}

/** The status the `version` tool reports. */
export interface TracingStatus {
  enabled: boolean;
  exporter: string;
  serviceName: string;
  /** 'active', 'disabled', or an error description. */
  status: string;
}

export type SpanKindName = 'internal' | 'client' | 'server';

/** W3C trace context as a caller sent it (the `traceparent` and `tracestate` headers). */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

/**
 * Spans for tool runs, AI, vector and cluster calls. The no-op implementation
 * runs `fn` directly; `inSpan` never swallows or changes what `fn` throws or returns.
 */
export interface Tracer {
  /** Runs `fn` inside a child of the current span (or a new root); ends the span when `fn` settles, recording a thrown error. */
  inSpan<T>(name: string, attributes: SpanAttributes, fn: (span: ActiveSpan) => Promise<T>, kind?: SpanKindName): Promise<T>;
  /**
   * Like `inSpan`, but only as a child of a span being recorded: without one
   * (tracing off, the run not sampled, a call outside any tool run) `fn` runs
   * with no span at all. Port decorators use it, so every AI, vector and
   * cluster span belongs to a tool run's trace and an unsampled run costs nothing.
   */
  inChildSpan<T>(name: string, attributes: SpanAttributes, fn: (span: ActiveSpan) => Promise<T>, kind?: SpanKindName): Promise<T>;
  /**
   * Runs `fn` with the caller's trace as the current parent, so the spans `fn`
   * opens join that trace (and its sampling decision). A missing or malformed
   * `traceparent` runs `fn` unchanged; never throws on its own.
   */
  withRemoteParent<T>(carrier: TraceCarrier, fn: () => Promise<T>): Promise<T>;
  status(): TracingStatus;
  /** Flushes pending spans; called on graceful shutdown. */
  shutdown(): Promise<void>;
}
