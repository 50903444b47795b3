import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { expect } from 'chai';
import { ScrubbingSpanExporter } from '../../infrastructure/tracing/scrubbing-span-exporter.js';

function span(overrides: Partial<ReadableSpan>): ReadableSpan {
  return {
    name: 'GET',
    kind: SpanKind.CLIENT,
    spanContext: () => ({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 }),
    startTime: [1, 0],
    endTime: [2, 0],
    duration: [1, 0],
    status: { code: SpanStatusCode.UNSET },
    attributes: {},
    links: [],
    events: [],
    ended: true,
    resource: resourceFromAttributes({ 'service.name': 'svc-mcp' }),
    instrumentationScope: { name: 'test' },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
    ...overrides,
  };
}

async function exportOne(exporter: ScrubbingSpanExporter, s: ReadableSpan) {
  const code = await new Promise((resolve) => exporter.export([s], (r) => resolve(r.code)));
  expect(code).to.equal(ExportResultCode.SUCCESS);
}

describe('ScrubbingSpanExporter', () => {
  it('scrubs names, string and array attributes, query-only attributes, events and the status message', async () => {
    const memory = new InMemorySpanExporter();
    const exporter = new ScrubbingSpanExporter(memory, ['s3cr3t-value']);
    await exportOne(
      exporter,
      span({
        name: 'fetch https://u:p@h/x',
        attributes: {
          'url.full': 'https://h/x?api_key=k1&page=2',
          'url.query': '?token=k2&page=2',
          'http.target': '/x?password=k3',
          'svc.note': 'auth s3cr3t-value used',
          'svc.list': ['https://a:b@h', 'plain'],
          'svc.count': 3,
        },
        status: { code: SpanStatusCode.ERROR, message: 'GET https://admin:k4@h failed' },
        events: [{ name: 'exception', time: [1, 5], attributes: { 'exception.message': 'bad s3cr3t-value' } }],
      }),
    );
    const [out] = memory.getFinishedSpans();
    expect(out!.name).to.equal('fetch https://***:***@h/x');
    expect(out!.attributes).to.deep.equal({
      'url.full': 'https://h/x?api_key=***&page=2',
      'url.query': '?token=***&page=2',
      'http.target': '/x?password=***',
      'svc.note': 'auth *** used',
      'svc.list': ['https://***:***@h', 'plain'],
      'svc.count': 3,
    });
    expect(out!.status.message).to.equal('GET https://***:***@h failed');
    expect(out!.events[0]!.attributes).to.deep.equal({ 'exception.message': 'bad ***' });
    expect(out!.spanContext().spanId).to.equal('b7ad6b7169203331');
  });

  it('scrubs a query string written without its question mark', async () => {
    const memory = new InMemorySpanExporter();
    await exportOne(new ScrubbingSpanExporter(memory, []), span({ attributes: { 'url.query': 'access_token=k&x=1' } }));
    expect(memory.getFinishedSpans()[0]!.attributes['url.query']).to.equal('access_token=***&x=1');
  });

  it('applies the length limit after scrubbing', async () => {
    const memory = new InMemorySpanExporter();
    await exportOne(new ScrubbingSpanExporter(memory, [], 20), span({ attributes: { v: 'https://user:LONGSECRET@host/path' } }));
    expect(memory.getFinishedSpans()[0]!.attributes.v).to.equal('https://***:***@host');
  });
});
