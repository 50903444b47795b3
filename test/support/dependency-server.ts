import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  authorization?: string;
  traceparent?: string;
}

/**
 * A stand-in for the services behind the ports (vector DB, AI provider, API
 * server): answers every request with a small JSON body, or 500 on paths
 * containing `/fail`. It records what arrived, headers included, so a test
 * can prove a credential was really sent and trace context was propagated.
 */
export class DependencyServer {
  readonly seen: SeenRequest[] = [];

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  static async start(): Promise<DependencyServer> {
    // eslint-disable-next-line prefer-const -- assigned after the server it is read from is created
    let self: DependencyServer | undefined;
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        self!.seen.push({
          method: req.method ?? '',
          url: req.url ?? '',
          authorization: req.headers.authorization,
          traceparent: req.headers.traceparent as string | undefined,
        });
        const failing = (req.url ?? '').includes('/fail');
        res.writeHead(failing ? 500 : 200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: !failing }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new DependencyServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return self;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
