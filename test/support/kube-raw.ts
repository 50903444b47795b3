import https from 'node:https';
import type { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import type { Obj } from '../../lab/sandbox/kube/kube-cluster.js';
import { testTls } from '../../lab/sandbox/kube/kube-test-ca.js';

export interface RawAnswer {
  status: number;
  body: Obj;
  warning?: string;
}

/** One request to the Kubernetes API stand-in as a client sends it (its token, its CA), the JSON answer parsed. */
export function kubeRequest(
  server: KubeApiServer,
  method: string,
  path: string,
  opts: { body?: unknown; contentType?: string; accept?: string } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const u = new URL(path, server.url);
    const text = opts.body === undefined ? '' : JSON.stringify(opts.body);
    const req = https.request(
      {
        method,
        hostname: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        ca: testTls().caPem,
        headers: {
          authorization: `Bearer ${server.token}`,
          ...(opts.contentType ? { 'content-type': opts.contentType } : {}),
          ...(opts.accept ? { accept: opts.accept } : {}),
          'content-length': Buffer.byteLength(text),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Obj,
            warning: res.headers.warning as string | undefined,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}
