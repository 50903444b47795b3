/** One span as a trace backend would store it, whatever wire format carried it. */
export type AttributeValue = string | number | boolean | Array<string | number | boolean>;

export interface ReceivedSpan {
  format: 'otlp-protobuf' | 'otlp-json' | 'zipkin' | 'jaeger' | 'console';
  /** 32 lower-case hex digits. */
  traceId: string;
  /** 16 lower-case hex digits. */
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** internal, server, client, producer, consumer (lower case), when the format says. */
  kind?: string;
  serviceName?: string;
  attributes: Record<string, AttributeValue>;
  /** 'error' when the span recorded a failure. */
  status: 'unset' | 'ok' | 'error';
  statusMessage?: string;
  events: Array<{ name: string; attributes: Record<string, AttributeValue> }>;
}

/** Trace and span ids arrive as hex, base64 or raw bytes depending on the format. */
export function hexId(value: unknown, bytes: number): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  let hex: string;
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) hex = Buffer.from(value).toString('hex');
  else if (typeof value === 'string' && /^[0-9a-fA-F]+$/.test(value) && value.length === bytes * 2) hex = value.toLowerCase();
  else if (typeof value === 'string') hex = Buffer.from(value, 'base64').toString('hex');
  else throw new Error(`unexpected id ${String(value)}`);
  hex = hex.padStart(bytes * 2, '0');
  return /^0+$/.test(hex) ? undefined : hex;
}
