import { expect } from 'chai';
import type { ReceivedSpan } from './received-span.js';

export function one(spans: ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.filter((s) => s.name === name);
  expect(
    found.map((s) => s.name),
    `exactly one span named "${name}" among ${spans.map((s) => s.name).join(', ')}`,
  ).to.deep.equal([name]);
  return found[0]!;
}

export function childrenOf(spans: ReceivedSpan[], parent: ReceivedSpan): ReceivedSpan[] {
  return spans.filter((s) => s.parentSpanId === parent.spanId);
}

/** Attribute values compared as text: Zipkin carries every tag as a string. */
export function attr(span: ReceivedSpan, key: string): string | undefined {
  const v = span.attributes[key];
  return v === undefined ? undefined : Array.isArray(v) ? v.join(',') : String(v);
}

/** The HTTP client span a logical span must contain: one child, kind client, carrying an HTTP method. */
export function httpChild(spans: ReceivedSpan[], parent: ReceivedSpan): ReceivedSpan {
  const children = childrenOf(spans, parent);
  expect(children, `one HTTP child under "${parent.name}"`).to.have.length(1);
  const http = children[0]!;
  expect(http.kind, `kind of the HTTP span under "${parent.name}"`).to.equal('client');
  expect(attr(http, 'http.request.method') ?? attr(http, 'http.method'), 'HTTP method attribute').to.match(/^(GET|POST)$/);
  return http;
}
