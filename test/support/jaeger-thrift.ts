import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { hexId, type AttributeValue, type ReceivedSpan } from './received-span.js';

/*
 * Jaeger's collector accepts thrift-encoded Batches over HTTP (`POST /api/traces`,
 * application/x-thrift). Decoded with the IDL and the thrift library that ship
 * with the jaeger packages the exporter depends on, resolved through that
 * dependency chain rather than named in package.json.
 */
const fromExporter = createRequire(require.resolve('@opentelemetry/exporter-jaeger'));
const jaegerClientDir = path.dirname(fromExporter.resolve('jaeger-client/package.json'));
const fromJaegerClient = createRequire(path.join(jaegerClientDir, 'package.json'));

const { Thrift } = fromJaegerClient('thriftrw') as { Thrift: new (o: object) => Record<string, { fromBuffer(b: Buffer): unknown }> };
const idl = readFileSync(path.join(jaegerClientDir, 'dist/src/jaeger-idl/thrift/jaeger.thrift'), 'ascii');
const jaeger = new Thrift({ source: idl, allowOptionalArguments: true });

type Obj = Record<string, unknown>;
const TAG_TYPES = ['STRING', 'DOUBLE', 'BOOL', 'LONG', 'BINARY'];

function tagValue(tag: Obj): AttributeValue {
  const type = typeof tag.vType === 'number' ? TAG_TYPES[tag.vType] : String(tag.vType);
  switch (type) {
    case 'STRING':
      return String(tag.vStr);
    case 'DOUBLE':
      return Number(tag.vDouble);
    case 'BOOL':
      return Boolean(tag.vBool);
    case 'LONG':
      return Number(Buffer.from(tag.vLong as Buffer).readBigInt64BE());
    default:
      return Buffer.from(tag.vBinary as Buffer).toString('hex');
  }
}

function tags(list: unknown): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const t of (list as Obj[] | null | undefined) ?? []) out[String(t.key)] = tagValue(t);
  return out;
}

/** A thrift Batch as received spans; throws when the body is not a valid Batch. */
export function fromJaegerThrift(body: Buffer): ReceivedSpan[] {
  const batch = jaeger.Batch!.fromBuffer(body) as Obj;
  const serviceName = String((batch.process as Obj).serviceName);
  return ((batch.spans as Obj[]) ?? []).map((s) => {
    const attributes = tags(s.tags);
    const status = attributes['otel.status_code'];
    return {
      format: 'jaeger',
      traceId: hexId(Buffer.concat([s.traceIdHigh as Buffer, s.traceIdLow as Buffer]), 16)!,
      spanId: hexId(s.spanId, 8)!,
      parentSpanId: hexId(s.parentSpanId, 8),
      name: String(s.operationName),
      kind: typeof attributes['span.kind'] === 'string' ? attributes['span.kind'] : undefined,
      serviceName,
      attributes,
      status: status === 'ERROR' ? 'error' : status === 'OK' ? 'ok' : 'unset',
      statusMessage: attributes['otel.status_description'] as string | undefined,
      events: ((s.logs as Obj[] | null) ?? []).map((log) => {
        const fields = tags(log.fields);
        const { event, ...rest } = fields;
        return { name: String(event), attributes: rest };
      }),
    };
  });
}
