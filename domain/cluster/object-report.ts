import type { ClusterEvent, KubeObject } from './kube-types.js';
import { compactObject, summarizeObject } from './object-summary.js';

/** Bytes of the status section; a longer status is cut (the object's fields can be asked for by fieldPath). */
export const STATUS_BYTES = 3000;
/** Bytes of the events section: the newest events that fit. */
export const EVENTS_BYTES = 3000;
const EVENT_CHARS = 300;
const MAX_EVENTS = 30;

/** One event on one line, the way `kubectl get events` shows it; bounded. */
export function eventLine(e: ClusterEvent): string {
  const line = `${e.type} ${e.reason} ${e.involvedObject.kind}/${e.involvedObject.name} x${e.count}: ${e.message}`.replace(/\s+/g, ' ');
  return line.length <= EVENT_CHARS ? line : `${line.slice(0, EVENT_CHARS)}…`;
}

/**
 * What get_resource and describe_resource answer: the one-line summary, the
 * status and the events first, each section bounded, and the object (without
 * its status) last. A result cut to the model's byte budget loses the end of
 * the object, never the state a model looks for first.
 */
export function objectReport(object: KubeObject, events?: readonly ClusterEvent[]): string {
  const { status, ...rest } = compactObject(object);
  const parts = [summarizeObject(object)];
  if (status !== undefined) parts.push(`status: ${bounded(JSON.stringify(status), STATUS_BYTES)}`);
  if (events) parts.push(eventsSection(events));
  parts.push(`object${status !== undefined ? ' (status above)' : ''}: ${JSON.stringify(rest)}`);
  return parts.join('\n');
}

/** The events section: the newest that fit in EVENTS_BYTES, oldest first. */
export function eventsSection(events: readonly ClusterEvent[]): string {
  const lines: string[] = [];
  let bytes = 0;
  for (const e of events.slice(-MAX_EVENTS).reverse()) {
    const line = eventLine(e);
    bytes += Buffer.byteLength(line) + 1;
    if (bytes > EVENTS_BYTES) break;
    lines.unshift(line);
  }
  const older = events.length - lines.length;
  if (lines.length === 0) return 'events: none';
  return `events (oldest first${older > 0 ? `; ${older} older not shown` : ''}):\n${lines.join('\n')}`;
}

function bounded(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  const head = Buffer.from(text)
    .subarray(0, maxBytes)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return `${head}… [status cut; ask get_resource with fieldPath "status.<field>" for the rest]`;
}
