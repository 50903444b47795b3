import type { SpanAttributes, SpanKindName, Tracer } from '../../domain/ports/tracer.js';

/** The span one call of a port method gets. */
export interface CallSpan {
  name: string;
  attributes: SpanAttributes;
  kind?: SpanKindName;
  /** Attributes read from what the call returned (result counts, token usage). */
  fromResult?(result: unknown): SpanAttributes;
}

/** How to describe each traced method of a port; a method without an entry is called straight through. */
export type SpanPlan = Readonly<Record<string, (args: unknown[]) => CallSpan>>;

/**
 * Wraps a port adapter so every planned method runs inside a child span of
 * the current tool run, with the adapter's own calls (and their HTTP client
 * spans) nested in it; outside a recorded run the call goes straight through. Unplanned
 * methods (synchronous ones such as `status()` or `info()`) pass through
 * untouched, so wrapping never changes a method from sync to async.
 *
 * A Proxy rather than a class per port: the ports grow while their adapters
 * are built, and a method added to a port must keep working through the
 * decorator (untraced until it is planned) instead of breaking the build.
 * The returned object has the port's type, results and errors are the inner
 * adapter's own, and calls the adapter makes on itself are not traced again
 * (the tool loop, which calls `chat` per iteration, lives outside the port).
 */
export function traceMethods<T extends object>(inner: T, tracer: Tracer, plan: SpanPlan): T {
  const wrappers = new Map<string, (...args: unknown[]) => unknown>();
  const bound = new Map<PropertyKey, { method: (...a: unknown[]) => unknown; bound: (...a: unknown[]) => unknown }>();
  const proxy: T = new Proxy(inner, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof property !== 'string' || typeof value !== 'function' || !Object.hasOwn(plan, property)) {
        if (typeof value !== 'function') return value;
        // bound once per method, not on every access (status() and info() are read per span)
        let entry = bound.get(property);
        if (entry?.method !== value) bound.set(property, (entry = { method: value as never, bound: value.bind(target) }));
        return entry!.bound;
      }
      let wrapper = wrappers.get(property);
      if (!wrapper) {
        const describe = plan[property]!;
        wrapper = (...args: unknown[]) => {
          const method = Reflect.get(target, property, target) as (...a: unknown[]) => Promise<unknown>;
          const call = describe(args);
          return tracer.inChildSpan(
            call.name,
            call.attributes,
            async (span) => {
              const result = await method.apply(target, args);
              if (call.fromResult) span.setAttributes(call.fromResult(result));
              return result;
            },
            call.kind ?? 'client',
          );
        };
        wrappers.set(property, wrapper);
      }
      return wrapper;
    },
  });
  return proxy;
}

/** A property of an unknown value, for reading attributes off arguments and results whose exact type belongs to another port. */
export function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
}

export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function asNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
