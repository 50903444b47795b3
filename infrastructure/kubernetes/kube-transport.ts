import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeIdentity } from '../../domain/auth/kube-identity.js';
import { DependencyError } from '../../domain/errors.js';
import { scrubText, scrubUrl } from '../../domain/security/scrub-credentials.js';
import { KubeStatusError, parseStatusBody } from './kube-errors.js';

export interface KubeRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Absolute API path, e.g. `/api/v1/namespaces/x/pods`; segments already encoded. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  /** Bound on the response body; default the transport's. */
  maxBytes?: number;
  /** Default the transport's request timeout. */
  timeoutMs?: number;
}

export interface KubeTransportOptions {
  timeoutMs: number;
  maxBytes: number;
  /** Every request carries `Impersonate-User` and one `Impersonate-Group` per group (checked by kubeIdentityOf). */
  impersonate?: KubeIdentity;
}

/** Kept-alive connection pools, shared by the transports of one cluster (svc's own and each impersonated caller's). */
export interface KubeAgents {
  https: https.Agent;
  http: http.Agent;
}

/**
 * Without kept-alive connections every API call paid a new TLS handshake
 * (about 3 ms here). Idle sockets are dropped after 4 s, before a server's
 * usual 5 s keep-alive timeout can close one under a request. Impersonation
 * headers do not change the connection, so impersonated callers share them.
 */
export function keepAliveAgents(): KubeAgents {
  return {
    https: new https.Agent({ keepAlive: true, maxSockets: 16, timeout: 4000 }),
    http: new http.Agent({ keepAlive: true, maxSockets: 16, timeout: 4000 }),
  };
}

/**
 * One HTTP path for every API call. KubeConfig does what is hard (kubeconfig
 * merge, contexts, token files, exec and OIDC plugins, client certificates,
 * CA, proxies) through `applyToHTTPSOptions`; this class adds what the
 * generated 1.4 clients lack: a response size bound, plain JSON for any kind
 * (the generated models drop unknown CRD fields and turn times into Dates),
 * and one place where failures become domain errors.
 */
export class KubeTransport {
  constructor(
    private readonly kc: KubeConfig,
    private readonly options: KubeTransportOptions,
    readonly agents: KubeAgents = keepAliveAgents(),
  ) {}

  /** The current cluster's server URL; throws when the kubeconfig has none. */
  server(): string {
    const server = this.kc.getCurrentCluster()?.server;
    if (!server) throw new Error('no current cluster');
    return server;
  }

  /** Secrets a message must never show: the static token and password of the current user. */
  secrets(extra: readonly (string | undefined)[] = []): (string | undefined)[] {
    const user = this.kc.getCurrentUser();
    return [user?.token, user?.password, ...extra];
  }

  async json<T>(req: KubeRequest): Promise<T> {
    return (await this.jsonWithWarnings<T>(req)).body;
  }

  /** The JSON body of a 2xx answer and the server's `Warning` headers (scrubbed, at most 10 of 500 characters). */
  async jsonWithWarnings<T>(req: KubeRequest): Promise<{ body: T; warnings: string[] }> {
    const { body, warnings } = await this.exchange(req, 'application/json');
    try {
      return { body: JSON.parse(body) as T, warnings };
    } catch {
      throw new DependencyError('kubernetes', `Kubernetes API answered ${req.method} ${req.path} with a body that is not JSON`);
    }
  }

  /** The response body of a 2xx answer; any other status throws KubeStatusError. */
  async text(req: KubeRequest, accept = 'application/json'): Promise<string> {
    return (await this.exchange(req, accept)).body;
  }

  private async exchange(req: KubeRequest, accept: string): Promise<{ body: string; warnings: string[] }> {
    const server = this.server();
    const url = new URL(server.replace(/\/+$/, '') + req.path);
    for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));

    const opts: https.RequestOptions = { method: req.method, headers: { Accept: accept } };
    let bearer: string | undefined;
    try {
      await this.kc.applyToHTTPSOptions(opts);
      // The library makes a new Agent per call (so a new TLS handshake each time). Unless a proxy
      // agent is needed, use the kept-alive pool: the TLS options are on the request, and an
      // Agent keys its sockets by them, so a connection is only reused for the same credentials.
      if (!this.kc.getCurrentCluster()?.proxyUrl) opts.agent = url.protocol === 'http:' ? this.agents.http : this.agents.https;
      bearer = String((opts.headers as Record<string, unknown>).Authorization ?? '').replace(/^Bearer\s+/i, '') || undefined;
      const as = this.options.impersonate;
      // set last, over anything the kubeconfig asked for: the caller is who this request is for
      if (as) Object.assign(opts.headers as object, { 'Impersonate-User': as.user, ...(as.groups.length ? { 'Impersonate-Group': [...as.groups] } : {}) });
    } catch (e) {
      // exec/OIDC plugins and refused settings (http:// without insecure-skip-tls-verify) fail here;
      // their text may quote the kubeconfig, so keep only its first line
      const first = (e instanceof Error ? e.message : String(e)).split('\n')[0].slice(0, 300);
      throw new DependencyError(
        'kubernetes',
        `Kubernetes credentials or TLS settings of the kubeconfig could not be applied: ${scrubText(first, this.secrets())}`,
      );
    }
    const payload = req.body === undefined ? undefined : Buffer.from(JSON.stringify(req.body));
    if (payload) Object.assign(opts.headers as object, { 'Content-Type': req.contentType ?? 'application/json', 'Content-Length': payload.length });

    const timeoutMs = req.timeoutMs ?? this.options.timeoutMs;
    const maxBytes = req.maxBytes ?? this.options.maxBytes;
    const secrets = this.secrets([bearer]);
    const { status, body, warning } = await this.send(url, opts, payload, timeoutMs, maxBytes, secrets);
    if (status >= 200 && status < 300) return { body, warnings: parseWarnings(warning).map((w) => scrubText(w, secrets)) };
    throw new KubeStatusError(status, parseStatusBody(body, status, secrets));
  }

  private send(
    url: URL,
    opts: https.RequestOptions,
    payload: Buffer | undefined,
    timeoutMs: number,
    maxBytes: number,
    secrets: (string | undefined)[],
  ): Promise<{ status: number; body: string; warning?: string | string[] }> {
    const where = scrubUrl(`${url.origin}`);
    return new Promise((resolve, reject) => {
      const lib = url.protocol === 'http:' ? http : https;
      const fail = (message: string) => reject(new DependencyError('kubernetes', scrubText(message, secrets)));
      const req = lib.request(url, { ...opts, signal: AbortSignal.timeout(timeoutMs) }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            req.destroy();
            fail(`Kubernetes API response to ${opts.method} ${url.pathname} is larger than ${maxBytes} bytes`);
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), warning: res.headers.warning }));
        res.on('error', (e) => fail(`Kubernetes API at ${where} broke off the response: ${describe(e)}`));
      });
      req.on('error', (e: NodeJS.ErrnoException) => {
        if (e.name === 'AbortError') fail(`Kubernetes API at ${where} did not answer within ${timeoutMs} ms (${opts.method} ${url.pathname})`);
        else fail(`Kubernetes API at ${where} is unreachable: ${describe(e)}`);
      });
      req.end(payload);
    });
  }
}

const MAX_WARNINGS = 10;
const MAX_WARNING_CHARS = 500;

/** The texts of `Warning: 299 - "text"` headers (RFC 7234 form, as kube-apiserver sends them); several may share one header. */
export function parseWarnings(header: string | string[] | undefined): string[] {
  const out: string[] = [];
  for (const line of [header ?? []].flat()) {
    for (const m of line.matchAll(/\d{3} \S+ "((?:[^"\\]|\\.)*)"/g)) out.push(m[1].replace(/\\(.)/g, '$1').slice(0, MAX_WARNING_CHARS));
  }
  return out.slice(0, MAX_WARNINGS);
}

function describe(e: NodeJS.ErrnoException): string {
  return e.code ? `${e.code} ${e.message}` : e.message;
}
