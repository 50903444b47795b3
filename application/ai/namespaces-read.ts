import type { FunctionCallRecord } from './tool-loop.js';

const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const MAX_NAMESPACES = 50;

/**
 * The namespaces a model's successful function calls named (`namespace`
 * argument): what the investigation actually read. A call across all
 * namespaces names none. Arguments are the recorded (possibly cut) JSON.
 */
export function namespacesRead(calls: readonly FunctionCallRecord[]): string[] {
  const seen = new Set<string>();
  for (const call of calls) {
    if (!call.ok) continue;
    let ns: unknown;
    try {
      ns = (JSON.parse(call.arguments) as { namespace?: unknown }).namespace;
    } catch {
      ns = /"namespace"\s*:\s*"([^"]{1,63})"/.exec(call.arguments)?.[1];
    }
    if (typeof ns === 'string' && NAMESPACE.test(ns)) seen.add(ns);
    if (seen.size >= MAX_NAMESPACES) break;
  }
  return [...seen];
}
