import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { fromJaegerThrift } from './jaeger-thrift.js';
import { decodeExportTraceServiceRequest } from './otlp-protobuf.js';
import { fromOtlp } from './otlp-normalize.js';
import type { ReceivedSpan } from './received-span.js';
import { fromZipkin } from './zipkin-normalize.js';

const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** One request as it arrived, kept raw so a test can search the exact bytes an exporter sent. */
export interface ReceivedRequest {
  path: string;
  contentType: string;
  /** The Authorization header, to check how an exporter authenticates. */
  authorization?: string;
  body: Buffer;
}

/**
 * A trace backend for tests: one node:http server on 127.0.0.1 that decodes
 * what each exporter really sends, the way the real collectors would:
 * - OTLP/HTTP on POST /v1/traces, protobuf (application/x-protobuf) or JSON;
 * - Zipkin v2 JSON on POST /api/v2/spans;
 * - Jaeger thrift over HTTP on POST /api/traces.
 * A body that does not decode is answered 400 and recorded in `errors`.
 */
export class TraceReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly requests: ReceivedRequest[] = [];
  readonly errors: string[] = [];
  /** Answer every export with this status instead of 200 (to simulate a failing collector). */
  failWith: number | undefined;

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  static async start(): Promise<TraceReceiver> {
    // eslint-disable-next-line prefer-const -- assigned after the server it is read from is created
    let receiver: TraceReceiver | undefined;
    const server = http.createServer((req, res) => receiver!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = new TraceReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return receiver;
  }

  /** Every raw body received, decompressed, as one latin1 string for byte-level searches. */
  rawText(): string {
    return this.requests.map((r) => r.body.toString('latin1')).join('\n');
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) req.destroy();
      else chunks.push(c);
    });
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      const contentType = String(req.headers['content-type'] ?? '')
        .split(';')[0]!
        .trim();
      let body = Buffer.concat(chunks);
      try {
        if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        if (req.method !== 'POST') throw new Error(`${req.method} ${path}: only POST is accepted`);
        this.requests.push({ path, contentType, authorization: req.headers.authorization, body });
        this.spans.push(...decode(path, contentType, body));
      } catch (err) {
        this.errors.push(err instanceof Error ? err.message : String(err));
        res.writeHead(400, { 'content-type': 'text/plain' }).end('bad request');
        return;
      }
      if (this.failWith) {
        res.writeHead(this.failWith, { 'content-type': 'text/plain' }).end('collector unavailable');
        return;
      }
      // OTLP wants an ExportTraceServiceResponse: empty is a full success in both encodings.
      if (path === '/v1/traces') res.writeHead(200, { 'content-type': contentType }).end(contentType === 'application/json' ? '{}' : '');
      else res.writeHead(path === '/api/v2/spans' ? 202 : 200).end();
    });
  }
}

function decode(path: string, contentType: string, body: Buffer): ReceivedSpan[] {
  if (path === '/v1/traces' && contentType === 'application/x-protobuf') {
    return fromOtlp(decodeExportTraceServiceRequest(body), 'otlp-protobuf');
  }
  if (path === '/v1/traces' && contentType === 'application/json') {
    return fromOtlp(JSON.parse(body.toString('utf8')), 'otlp-json');
  }
  if (path === '/api/v2/spans' && contentType === 'application/json') return fromZipkin(JSON.parse(body.toString('utf8')));
  if (path === '/api/traces' && contentType === 'application/x-thrift') return fromJaegerThrift(body);
  throw new Error(`no decoder for ${path} (${contentType})`);
}
