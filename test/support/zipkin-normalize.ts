import { hexId, type ReceivedSpan } from './received-span.js';

type Obj = Record<string, unknown>;

/** Zipkin v2 JSON (`POST /api/v2/spans`, an array of spans) as received spans. Tags are strings in Zipkin. */
export function fromZipkin(body: unknown): ReceivedSpan[] {
  if (!Array.isArray(body)) throw new Error('Zipkin v2 body must be a JSON array');
  return (body as Obj[]).map((s) => {
    const tags = (s.tags as Record<string, string> | undefined) ?? {};
    const statusCode = tags['otel.status_code'];
    return {
      format: 'zipkin',
      traceId: hexId(s.traceId, 16)!,
      spanId: hexId(s.id, 8)!,
      parentSpanId: hexId(s.parentId, 8),
      name: String(s.name),
      kind: typeof s.kind === 'string' ? s.kind.toLowerCase() : undefined,
      serviceName: (s.localEndpoint as Obj | undefined)?.serviceName as string | undefined,
      attributes: { ...tags },
      status: statusCode === 'ERROR' ? 'error' : statusCode === 'OK' ? 'ok' : 'unset',
      statusMessage: tags.error,
      events: ((s.annotations as Obj[] | undefined) ?? []).map((a) => ({ name: String(a.value), attributes: {} })),
    };
  });
}
