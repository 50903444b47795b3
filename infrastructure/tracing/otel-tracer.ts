import { context, propagation, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer as OtelApiTracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { Logger } from '../../domain/ports/logger.js';
import { scrubText } from '../../domain/security/scrub-credentials.js';
import type { ActiveSpan, SpanAttributes, SpanKindName, TraceCarrier, Tracer, TracingStatus } from '../../domain/ports/tracer.js';
import type { TracingConfig } from '../config/tracing-config.js';
import { enableClientInstrumentations } from './client-instrumentations.js';
import type { LineSink } from './console-json-span-exporter.js';
import { routeDiagnostics } from './diag-to-logger.js';
import { ScrubbingSpanExporter } from './scrubbing-span-exporter.js';
import { createSpanExporter, EXPORT_TIMEOUT_MS } from './span-exporters.js';
import { StatusTrackingExporter } from './status-tracking-exporter.js';

export interface OtelTracerOptions {
  config: TracingConfig;
  serviceVersion: string;
  logger: Logger;
  /** Configured secret values (tokens, API keys) replaced by `***` wherever they appear in a span. */
  secrets: readonly string[];
  /** Where the console exporter writes; stderr by default. */
  consoleSink?: LineSink;
}

const KINDS: Record<SpanKindName, SpanKind> = { internal: SpanKind.INTERNAL, client: SpanKind.CLIENT, server: SpanKind.SERVER };
/** Bounded wait for the last export on shutdown, so a dead collector cannot hold up a graceful stop. */
const SHUTDOWN_TIMEOUT_MS = EXPORT_TIMEOUT_MS + 2_000;

/** OpenTelemetry's context, propagation and tracer registries are process-wide: one started tracer at a time. */
let running: OtelTracer | undefined;

const NOOP_SPAN: ActiveSpan = { setAttributes() {}, recordError() {} };

class OtelActiveSpan implements ActiveSpan {
  recorded: unknown;
  constructor(private readonly span: Span) {}
  setAttributes(attributes: SpanAttributes): void {
    // the SDK drops undefined values itself
    this.span.setAttributes(attributes);
  }
  recordError(error: unknown): void {
    if (this.recorded === error) return;
    this.recorded = error;
    const err = error instanceof Error ? error : new Error(String(error));
    this.span.recordException(err);
    const code = (err as { code?: unknown }).code;
    this.span.setAttribute('error.type', typeof code === 'string' ? code : err.name);
    this.span.setStatus({ code: SpanStatusCode.ERROR, message: err.message });
  }
}

/**
 * The Tracer port on the OpenTelemetry Node SDK: parent-based ratio sampling,
 * W3C trace context, http/undici client spans, a batching processor behind a
 * credential scrubber, and one of four exporters. Flushed on shutdown.
 */
export class OtelTracer implements Tracer {
  private readonly propagator = new W3CTraceContextPropagator();
  private readonly exporter: StatusTrackingExporter;
  private readonly batch: BatchSpanProcessor;
  private readonly sdk: NodeSDK;
  private readonly tracer: OtelApiTracer;
  private readonly undo: Array<() => void> = [];
  private stopped: Promise<void> | undefined;

  private constructor(private readonly options: OtelTracerOptions) {
    const { config, logger, secrets } = options;
    // The length limit is applied after scrubbing (see ScrubbingSpanExporter), never before.
    const scrubbing = new ScrubbingSpanExporter(createSpanExporter(config, options.consoleSink), secrets, config.attributeValueLengthLimit);
    this.exporter = new StatusTrackingExporter(
      scrubbing,
      (text) => scrubText(text, secrets),
      (message) => logger.warn('tracing export failed', { exporter: config.exporter, error: message }),
    );
    const batch = (this.batch = new BatchSpanProcessor(this.exporter, {
      maxQueueSize: 2048,
      maxExportBatchSize: 512,
      scheduledDelayMillis: 5000,
      exportTimeoutMillis: EXPORT_TIMEOUT_MS,
    }));
    this.undo.push(routeDiagnostics(logger, config.debug, secrets));
    // Loaded only when tracing is configured (SVC_TRACING_EXPORTER): the Node SDK brings its metric and log
    // packages with it, a start without tracing never loads it.
    this.sdk = new NodeSDK({
      serviceName: config.serviceName,
      resource: defaultResource().merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.serviceName, [ATTR_SERVICE_VERSION]: options.serviceVersion })),
      // Host and process detectors would put command lines into every export.
      autoDetectResources: false,
      textMapPropagator: this.propagator,
      sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.samplingProbability) }),
      spanLimits: { attributeValueLengthLimit: Infinity },
      spanProcessors: [batch],
      instrumentations: [],
      // Traces only: without these the SDK would start OTLP metric and log exporters of its own.
      metricReaders: [],
      logRecordProcessors: [],
    });
    this.sdk.start();
    this.undo.push(enableClientInstrumentations(trace.getTracerProvider()));
    this.tracer = trace.getTracer('svc', options.serviceVersion);
  }

  /** Registers the SDK and the client instrumentations; call before the app makes any outgoing call. */
  static start(options: OtelTracerOptions): OtelTracer {
    if (running) throw new Error('An OpenTelemetry tracer is already running in this process; shut it down first');
    running = new OtelTracer(options);
    return running;
  }

  inSpan<T>(name: string, attributes: SpanAttributes, fn: (span: ActiveSpan) => Promise<T>, kind: SpanKindName = 'internal'): Promise<T> {
    return this.run(context.active(), name, attributes, fn, kind);
  }

  inChildSpan<T>(name: string, attributes: SpanAttributes, fn: (span: ActiveSpan) => Promise<T>, kind: SpanKindName = 'internal'): Promise<T> {
    const parent = context.active();
    if (!trace.getSpan(parent)?.isRecording()) return fn(NOOP_SPAN);
    return this.run(parent, name, attributes, fn, kind);
  }

  /**
   * A span that is not recorded (the sampler said no) is not made current:
   * `fn` runs in the caller's context, where the port decorators and the HTTP
   * instrumentations find no recording parent and add nothing. Making it
   * current would switch on AsyncLocalStorage, whose promise hooks cost every
   * request on Node 20 (see bench/tracing), for a trace nobody will see.
   */
  private run<T>(parent: Context, name: string, attributes: SpanAttributes, fn: (span: ActiveSpan) => Promise<T>, kind: SpanKindName) {
    const span = this.tracer.startSpan(name, { kind: KINDS[kind], attributes }, parent);
    if (!span.isRecording()) {
      span.end();
      return fn(NOOP_SPAN);
    }
    return context.with(trace.setSpan(parent, span), async () => {
      const active = new OtelActiveSpan(span);
      try {
        return await fn(active);
      } catch (err) {
        active.recordError(err);
        throw err;
      } finally {
        span.end();
      }
    });
  }

  withRemoteParent<T>(carrier: TraceCarrier, fn: () => Promise<T>): Promise<T> {
    if (!carrier.traceparent) return fn();
    const parent = this.propagator.extract(context.active(), carrier, {
      keys: (c) => Object.keys(c),
      get: (c, key) => (c as Record<string, string | undefined>)[key],
    });
    return context.with(parent, fn);
  }

  status(): TracingStatus {
    const { config } = this.options;
    const failure = this.exporter.failure();
    return {
      enabled: true,
      exporter: config.exporter,
      serviceName: config.serviceName,
      status: this.stopped ? 'shut down' : failure ? `export failing: ${failure}` : 'active',
    };
  }

  /** Exports the finished spans now instead of at the next scheduled batch. A failure shows in `status()` and the log, not here. */
  async flush(): Promise<void> {
    await this.batch.forceFlush().catch(() => undefined);
  }

  /** Exports what is pending, stops the SDK and undoes every global registration. Idempotent. */
  shutdown(): Promise<void> {
    this.stopped ??= (async () => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          this.options.logger.warn('tracing: shutdown timed out; pending spans dropped', { timeoutMs: SHUTDOWN_TIMEOUT_MS });
          resolve();
        }, SHUTDOWN_TIMEOUT_MS);
        timer.unref();
      });
      try {
        await Promise.race([this.sdk.shutdown(), timeout]);
      } catch (err) {
        this.options.logger.warn('tracing: shutdown failed', { error: err instanceof Error ? err.message : String(err) });
      } finally {
        clearTimeout(timer);
        for (const undo of this.undo.reverse()) undo();
        trace.disable();
        context.disable();
        propagation.disable();
        if (running === this) running = undefined;
      }
    })();
    return this.stopped;
  }
}
