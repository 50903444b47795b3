import { hexId, type AttributeValue, type ReceivedSpan } from './received-span.js';

type Obj = Record<string, unknown>;
const KINDS = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'];
const STATUS = ['unset', 'ok', 'error'] as const;

function anyValue(v: Obj | undefined): AttributeValue {
  if (!v) return '';
  if ('stringValue' in v) return String(v.stringValue);
  if ('boolValue' in v) return Boolean(v.boolValue);
  // JSON carries int64 as a string or a number
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return Number(v.doubleValue);
  if ('arrayValue' in v) return (((v.arrayValue as Obj).values as Obj[] | undefined) ?? []).map((x) => anyValue(x) as string);
  throw new Error(`unsupported OTLP value ${JSON.stringify(v)}`);
}

function attributes(list: unknown): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const kv of (list as Obj[] | undefined) ?? []) out[String(kv.key)] = anyValue(kv.value as Obj | undefined);
  return out;
}

/** ExportTraceServiceRequest, decoded from protobuf or parsed from JSON, as received spans. */
export function fromOtlp(request: Obj, format: 'otlp-protobuf' | 'otlp-json'): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const rs of (request.resourceSpans as Obj[] | undefined) ?? []) {
    const resource = attributes((rs.resource as Obj | undefined)?.attributes);
    for (const ss of (rs.scopeSpans as Obj[] | undefined) ?? []) {
      for (const s of (ss.spans as Obj[] | undefined) ?? []) {
        const status = (s.status as Obj | undefined) ?? {};
        spans.push({
          format,
          traceId: hexId(s.traceId, 16)!,
          spanId: hexId(s.spanId, 8)!,
          parentSpanId: hexId(s.parentSpanId, 8),
          name: String(s.name),
          kind: KINDS[Number(s.kind ?? 0)],
          serviceName: resource['service.name'] as string | undefined,
          attributes: attributes(s.attributes),
          status: STATUS[Number(status.code ?? 0)] ?? 'unset',
          statusMessage: status.message as string | undefined,
          events: ((s.events as Obj[] | undefined) ?? []).map((e) => ({ name: String(e.name), attributes: attributes(e.attributes) })),
        });
      }
    }
  }
  return spans;
}
