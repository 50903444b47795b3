/**
 * A protobuf wire-format reader and the OTLP trace schema (opentelemetry-proto
 * `collector/trace/v1` ExportTraceServiceRequest and the messages it uses),
 * field numbers as published in the specification. Written here because the
 * installed OTLP packages ship a hand-written encoder, not the .proto files;
 * being independent of that encoder is what makes the test meaningful.
 */

type Scalar = 'string' | 'bytes' | 'varint' | 'bool' | 'fixed64' | 'fixed32' | 'double';
interface FieldSpec {
  name: string;
  /** A scalar, or the name of another message in SCHEMA. */
  type: string;
  repeated?: boolean;
}
type MessageName = keyof typeof SCHEMA;

const SCHEMA = {
  ExportTraceServiceRequest: { 1: { name: 'resourceSpans', type: 'ResourceSpans', repeated: true } },
  ResourceSpans: {
    1: { name: 'resource', type: 'Resource' },
    2: { name: 'scopeSpans', type: 'ScopeSpans', repeated: true },
    3: { name: 'schemaUrl', type: 'string' },
  },
  Resource: { 1: { name: 'attributes', type: 'KeyValue', repeated: true }, 2: { name: 'droppedAttributesCount', type: 'varint' } },
  ScopeSpans: {
    1: { name: 'scope', type: 'InstrumentationScope' },
    2: { name: 'spans', type: 'Span', repeated: true },
    3: { name: 'schemaUrl', type: 'string' },
  },
  InstrumentationScope: {
    1: { name: 'name', type: 'string' },
    2: { name: 'version', type: 'string' },
    3: { name: 'attributes', type: 'KeyValue', repeated: true },
    4: { name: 'droppedAttributesCount', type: 'varint' },
  },
  Span: {
    1: { name: 'traceId', type: 'bytes' },
    2: { name: 'spanId', type: 'bytes' },
    3: { name: 'traceState', type: 'string' },
    4: { name: 'parentSpanId', type: 'bytes' },
    5: { name: 'name', type: 'string' },
    6: { name: 'kind', type: 'varint' },
    7: { name: 'startTimeUnixNano', type: 'fixed64' },
    8: { name: 'endTimeUnixNano', type: 'fixed64' },
    9: { name: 'attributes', type: 'KeyValue', repeated: true },
    10: { name: 'droppedAttributesCount', type: 'varint' },
    11: { name: 'events', type: 'Event', repeated: true },
    12: { name: 'droppedEventsCount', type: 'varint' },
    13: { name: 'links', type: 'Link', repeated: true },
    14: { name: 'droppedLinksCount', type: 'varint' },
    15: { name: 'status', type: 'Status' },
    16: { name: 'flags', type: 'fixed32' },
  },
  Event: {
    1: { name: 'timeUnixNano', type: 'fixed64' },
    2: { name: 'name', type: 'string' },
    3: { name: 'attributes', type: 'KeyValue', repeated: true },
    4: { name: 'droppedAttributesCount', type: 'varint' },
  },
  Link: {
    1: { name: 'traceId', type: 'bytes' },
    2: { name: 'spanId', type: 'bytes' },
    3: { name: 'traceState', type: 'string' },
    4: { name: 'attributes', type: 'KeyValue', repeated: true },
    5: { name: 'droppedAttributesCount', type: 'varint' },
    6: { name: 'flags', type: 'fixed32' },
  },
  Status: { 2: { name: 'message', type: 'string' }, 3: { name: 'code', type: 'varint' } },
  KeyValue: { 1: { name: 'key', type: 'string' }, 2: { name: 'value', type: 'AnyValue' } },
  AnyValue: {
    1: { name: 'stringValue', type: 'string' },
    2: { name: 'boolValue', type: 'bool' },
    3: { name: 'intValue', type: 'varint' },
    4: { name: 'doubleValue', type: 'double' },
    5: { name: 'arrayValue', type: 'ArrayValue' },
    6: { name: 'kvlistValue', type: 'KeyValueList' },
    7: { name: 'bytesValue', type: 'bytes' },
  },
  ArrayValue: { 1: { name: 'values', type: 'AnyValue', repeated: true } },
  KeyValueList: { 1: { name: 'values', type: 'KeyValue', repeated: true } },
} satisfies Record<string, Record<number, FieldSpec>>;

export type Decoded = Record<string, unknown>;

class Reader {
  pos = 0;
  constructor(
    private readonly buf: Buffer,
    private readonly end = buf.length,
  ) {}
  done() {
    return this.pos >= this.end;
  }
  varint(): bigint {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.pos >= this.end) throw new Error('truncated varint');
      const byte = this.buf[this.pos++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
    }
    throw new Error('varint too long');
  }
  take(n: number): Buffer {
    if (this.pos + n > this.end) throw new Error('truncated field');
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}

function scalar(type: Scalar, wire: number, r: Reader): unknown {
  switch (type) {
    case 'varint':
      return Number(BigInt.asIntN(64, r.varint()));
    case 'bool':
      return r.varint() !== 0n;
    case 'fixed64':
      return r.take(8).readBigUInt64LE();
    case 'double':
      return r.take(8).readDoubleLE();
    case 'fixed32':
      return r.take(4).readUInt32LE();
    case 'string':
      return r.take(Number(r.varint())).toString('utf8');
    case 'bytes':
      return Buffer.from(r.take(Number(r.varint())));
  }
  throw new Error(`wire type ${wire} for ${type}`);
}

function skip(wire: number, r: Reader) {
  if (wire === 0) r.varint();
  else if (wire === 1) r.take(8);
  else if (wire === 2) r.take(Number(r.varint()));
  else if (wire === 5) r.take(4);
  else throw new Error(`unsupported wire type ${wire}`);
}

function message(name: MessageName, buf: Buffer): Decoded {
  const fields = SCHEMA[name] as Record<number, FieldSpec>;
  const out: Decoded = {};
  const r = new Reader(buf);
  while (!r.done()) {
    const tag = Number(r.varint());
    const number = tag >>> 3;
    const wire = tag & 7;
    const spec = fields[number];
    if (!spec) {
      skip(wire, r);
      continue;
    }
    const value = spec.type in SCHEMA ? message(spec.type as MessageName, r.take(Number(r.varint()))) : scalar(spec.type as Scalar, wire, r);
    if (spec.repeated) ((out[spec.name] ??= []) as unknown[]).push(value);
    else out[spec.name] = value;
  }
  return out;
}

/** Decodes an OTLP/HTTP protobuf body (ExportTraceServiceRequest). Throws on malformed input. */
export function decodeExportTraceServiceRequest(body: Buffer): Decoded {
  return message('ExportTraceServiceRequest', body);
}
