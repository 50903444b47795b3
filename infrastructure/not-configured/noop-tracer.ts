// The no-op tracer lives with the other tracing adapters; kept here so existing imports still resolve.
export { NoopTracer } from '../tracing/noop-tracer.js';
