import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { QdrantHttpError } from './qdrant-model.js';
import { QdrantState, type RouteResult } from './qdrant-routes.js';

export interface QdrantServerOptions {
  /** When set, requests must carry it in `api-key` (or `Authorization: Bearer`). */
  apiKey?: string;
  version?: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
}

const MAX_BODY = 32 * 1024 * 1024; // Qdrant's default service.max_request_size_mb

/**
 * A single-node Qdrant speaking the REST wire format on 127.0.0.1 (port 0):
 * `{result, status: "ok", time}` on success, `{status: {error}, time}` on
 * failure, GET / answering the version object. Test hooks: `hang` (accept and
 * never answer), `failNext` (answer the next request with an error), `requests`.
 */
export class QdrantServer {
  readonly state = new QdrantState();
  readonly requests: RecordedRequest[] = [];
  hang = false;
  private nextFailure?: { status: number; message: string };
  private server?: http.Server;

  constructor(private readonly options: QdrantServerOptions = {}) {}

  get url(): string {
    const { port } = this.server!.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  failNext(status: number, message: string): void {
    this.nextFailure = { status, message };
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  private send(res: http.ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const started = process.hrtime.bigint();
    const time = () => Number(process.hrtime.bigint() - started) / 1e9;
    const url = new URL(req.url ?? '/', 'http://qdrant');
    this.requests.push({ method: req.method ?? '', path: url.pathname + url.search, headers: req.headers });
    if (this.hang) return; // the socket stays open until the client gives up or the server stops
    try {
      const body = await readJson(req);
      if (this.options.apiKey !== undefined) {
        const bearer = req.headers.authorization?.replace(/^Bearer /, '');
        if (req.headers['api-key'] !== this.options.apiKey && bearer !== this.options.apiKey) {
          throw new QdrantHttpError(401, req.headers['api-key'] || bearer ? 'Invalid api-key' : 'Must provide an API key or an Authorization bearer token');
        }
      }
      if (this.nextFailure) {
        const f = this.nextFailure;
        this.nextFailure = undefined;
        throw new QdrantHttpError(f.status, f.message);
      }
      const out = this.route(req.method ?? 'GET', url, body);
      if (out === undefined) {
        res.writeHead(404).end();
        return;
      }
      this.send(res, 200, 'raw' in out ? out.raw : { result: out.result, status: 'ok', time: time() });
    } catch (e) {
      const status = e instanceof QdrantHttpError ? e.status : 500;
      this.send(res, status, { status: { error: (e as Error).message }, time: time() });
    }
  }

  private route(method: string, url: URL, body: Record<string, unknown>): RouteResult | undefined {
    const s = this.state;
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const key = `${method} /${parts.map((p, i) => (i === 1 && parts[0] === 'collections' ? ':name' : p)).join('/')}`;
    const name = parts[1];
    switch (key) {
      case 'GET /':
        return {
          raw: { title: 'qdrant - vector search engine', version: this.options.version ?? '1.15.1', commit: '0000000000000000000000000000000000000000' },
        };
      case 'GET /collections':
        return s.listCollections();
      case 'GET /collections/:name':
        return s.info(name);
      case 'PUT /collections/:name':
        return s.create(name, body);
      case 'DELETE /collections/:name':
        return s.drop(name);
      case 'GET /collections/:name/exists':
        return s.exists(name);
      case 'PUT /collections/:name/points':
        return s.upsert(name, body, url.searchParams);
      case 'POST /collections/:name/points':
        return s.retrieve(name, body);
      case 'POST /collections/:name/points/delete':
        return s.deletePoints(name, body, url.searchParams);
      case 'POST /collections/:name/points/search':
        return s.search(name, body);
      case 'POST /collections/:name/points/query':
        return s.query(name, body);
      case 'POST /collections/:name/points/scroll':
        return s.scroll(name, body);
      case 'POST /collections/:name/points/count':
        return s.count(name, body);
      default:
        return undefined;
    }
  }
}

async function readJson(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new QdrantHttpError(413, 'Payload too large');
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return {};
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
  } catch (e) {
    throw new QdrantHttpError(400, `Format error in JSON body: ${(e as Error).message}`);
  }
}
