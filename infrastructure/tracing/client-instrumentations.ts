import type { TracerProvider } from '@opentelemetry/api';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';

/**
 * Client-side HTTP instrumentation: node:http/https (the Kubernetes client and
 * the exporters' own transport) and undici/fetch (openai, Qdrant). Each call a
 * port adapter makes inside an AI, vector or cluster span becomes a nested
 * HTTP client span.
 *
 * One instance per process, re-enabled on every start: require-in-the-middle
 * patches a module once per process, so a second instance would never see
 * `http` again after a shutdown (tests and benches start several tracers).
 * Created on the first start only: a service with tracing off never loads them.
 */
let instances: [HttpInstrumentation, UndiciInstrumentation] | undefined;

function create(): [HttpInstrumentation, UndiciInstrumentation] {
  return [
    new HttpInstrumentation({
      // The tool span is the root of svc's part of a trace (SPEC.md); the incoming
      // traceparent is extracted by the interface and made its parent instead.
      disableIncomingRequestInstrumentation: true,
      // Only calls made inside one of our spans are traced: no orphan traces from
      // unrelated traffic, and the exporters' own requests stay out (they also suppress).
      requireParentforOutgoingSpans: true,
    }),
    // Constructed enabled: undici checks its config's `enabled` on every request, not just enable().
    new UndiciInstrumentation({ requireParentforSpans: true }),
  ];
}

/** Enables both instrumentations against `provider`; returns the function that disables them. */
export function enableClientInstrumentations(provider: TracerProvider): () => void {
  instances ??= create();
  for (const instrumentation of instances) {
    instrumentation.setTracerProvider(provider);
    instrumentation.enable();
  }
  // The http patch is applied when the module is next required; http is already
  // loaded by now (express), so require it once here rather than wait for a caller.
  require('node:http');
  require('node:https');
  const enabled = instances;
  return () => {
    for (const instrumentation of enabled) instrumentation.disable();
  };
}
