import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { GitHttpRequest, GitHttpResponse, HttpClient } from 'isomorphic-git';
import { nonPublicKindOf } from '../../domain/prompts/ip-literal.js';
import { ConnectGuard, pinnedLookup, systemResolver, type HostResolver } from './connect-guard.js';
import { GitTransportError } from './git-transport-error.js';

export { GitTransportError };

/** A failing answer kept for the error message (body capped at FAILURE_BODY_CAP bytes). */
export interface HttpFailure {
  statusCode: number;
  statusMessage: string;
  contentType: string;
  body: string;
}

export interface ScopedHttpOptions {
  /** The clone URL; its scheme and host:port form the only origin a credential is sent to. */
  repoUrl: string;
  /** Sent as Basic auth (username x-access-token, the token as password), as GitHub expects. */
  token?: string;
  signal: AbortSignal;
  /** Cap on bytes received over the whole clone. */
  maxBytes: number;
  /**
   * A per-request repo: refuse every non-public destination, whether named by
   * an IP literal in a redirect or reached through a host name that resolves
   * there (see ConnectGuard). False for the configured repo, which is exempt.
   */
  refuseNonPublicRedirects: boolean;
  /** Host names a guarded clone may reach even when they resolve to non-public addresses (SVC_REPO_INTERNAL_HOSTS). */
  internalHosts?: readonly string[];
  /** How host names are resolved for a guarded clone; the system resolver by default. */
  resolve?: HostResolver;
  maxRedirects?: number;
  /** What the size limit is for, in its message (default "prompt sources"). */
  limitFor?: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const FAILURE_BODY_CAP = 64 * 1024;
const REQUEST_BODY_CAP = 8 * 1024 * 1024;

export function sizeLimitMessage(maxBytes: number, limitFor = 'prompt sources'): string {
  const limit = maxBytes >= 1048576 ? `${Math.round(maxBytes / 1048576)} MiB` : `${maxBytes} bytes`;
  return `the repository is larger than the ${limit} limit for ${limitFor}`;
}

export function basicAuthFor(token: string): string {
  return `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
}

async function collect(body: AsyncIterable<Uint8Array> | undefined): Promise<Buffer | undefined> {
  if (!body) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > REQUEST_BODY_CAP) throw new GitTransportError('git request body exceeds 8 MiB');
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

function flatHeaders(res: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

async function* once(buffer: Buffer): AsyncGenerator<Uint8Array> {
  if (buffer.length) yield buffer;
}

/**
 * isomorphic-git's HTTP plugin for one clone. It follows redirects itself so
 * it can keep credentials on the repo's origin: any Authorization header (the
 * token, or URL userinfo isomorphic-git turned into one) is dropped on a request
 * to another host, another port, or from https down to http.
 */
export class ScopedGitHttpClient implements HttpClient {
  /** Set when a credential was withheld from a redirect target (its host). */
  droppedCredentialTo?: string;
  lastFailure?: HttpFailure;
  sizeExceeded = false;
  private received = 0;
  private readonly origin: URL;
  private readonly guard: ConnectGuard;

  constructor(private readonly options: ScopedHttpOptions) {
    this.origin = new URL(options.repoUrl);
    this.guard = new ConnectGuard({
      enabled: options.refuseNonPublicRedirects,
      internalHosts: options.internalHosts ?? [],
      resolve: options.resolve ?? systemResolver,
    });
  }

  request = async (req: GitHttpRequest): Promise<GitHttpResponse> => {
    let url = new URL(req.url);
    let method = (req.method ?? 'GET').toUpperCase();
    let body = await collect(req.body);
    const maxRedirects = this.options.maxRedirects ?? 5;
    for (let hop = 0; ; hop++) {
      const res = await this.send(url, method, this.headersFor(url, req.headers ?? {}), body, hop > 0);
      const location = res.headers.location;
      if (!REDIRECTS.has(res.statusCode ?? 0) || !location) return this.toResponse(url, method, res);
      res.resume();
      if (hop >= maxRedirects) throw new GitTransportError(`too many redirects (more than ${maxRedirects})`);
      url = this.redirectTarget(url, location);
      if (res.statusCode === 303) {
        method = 'GET';
        body = undefined;
      }
    }
  };

  private redirectTarget(from: URL, location: string): URL {
    let next: URL;
    try {
      next = new URL(location, from);
    } catch {
      throw new GitTransportError('redirect to an invalid location');
    }
    if (next.protocol !== 'http:' && next.protocol !== 'https:') {
      throw new GitTransportError(`refused to follow a redirect to a ${next.protocol.slice(0, -1)} URL (only http and https are allowed)`);
    }
    const kind = this.options.refuseNonPublicRedirects ? nonPublicKindOf(next.hostname) : undefined;
    if (kind) {
      throw new GitTransportError(
        `refused to follow a redirect to ${next.hostname}: it is a ${kind} address, not a public destination this server may fetch prompts from`,
      );
    }
    return next;
  }

  private isOrigin(url: URL): boolean {
    const downgrade = this.origin.protocol === 'https:' && url.protocol !== 'https:';
    return url.host === this.origin.host && !downgrade;
  }

  private headersFor(url: URL, given: Record<string, string>): Record<string, string> {
    const headers: Record<string, string> = {};
    let hadCredential = !!this.options.token;
    for (const [k, v] of Object.entries(given)) {
      if (k.toLowerCase() === 'authorization') hadCredential = true;
      else headers[k] = v;
    }
    if (this.isOrigin(url)) {
      const auth = this.options.token ? basicAuthFor(this.options.token) : Object.entries(given).find(([k]) => k.toLowerCase() === 'authorization')?.[1];
      if (auth) headers.Authorization = auth;
    } else if (hadCredential) {
      this.droppedCredentialTo = url.host;
    }
    headers['User-Agent'] ??= 'svc-prompts (isomorphic-git)';
    return headers;
  }

  private async send(url: URL, method: string, headers: Record<string, string>, body: Buffer | undefined, viaRedirect: boolean): Promise<IncomingMessage> {
    const transport = url.protocol === 'https:' ? https : http;
    const pinned = await this.guard.addressesFor(url, viaRedirect);
    const lookup = pinned ? { lookup: pinnedLookup(pinned) } : {};
    return new Promise((resolve, reject) => {
      const req = transport.request(url, { method, headers, signal: this.options.signal, ...lookup }, resolve);
      req.on('error', reject);
      req.end(body);
    });
  }

  private async toResponse(url: URL, method: string, res: IncomingMessage): Promise<GitHttpResponse> {
    const statusCode = res.statusCode ?? 0;
    const statusMessage = res.statusMessage ?? '';
    const headers = flatHeaders(res);
    if (statusCode >= 200 && statusCode < 300) {
      return { url: url.href, method, statusCode, statusMessage, headers, body: this.counted(res) };
    }
    // an error answer: keep the head of its body for the message, drop the rest
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res) {
      const room = FAILURE_BODY_CAP - size;
      if (room <= 0) break;
      const c = chunk as Buffer;
      chunks.push(c.subarray(0, room));
      size += Math.min(c.length, room);
    }
    res.destroy();
    const text = Buffer.concat(chunks);
    this.lastFailure = { statusCode, statusMessage, contentType: headers['content-type'] ?? '', body: text.toString('utf8') };
    return { url: url.href, method, statusCode, statusMessage, headers, body: once(text) };
  }

  private async *counted(res: IncomingMessage): AsyncGenerator<Uint8Array> {
    for await (const chunk of res) {
      this.received += (chunk as Buffer).length;
      if (this.received > this.options.maxBytes) {
        this.sizeExceeded = true;
        res.destroy();
        throw new GitTransportError(sizeLimitMessage(this.options.maxBytes, this.options.limitFor));
      }
      yield chunk as Buffer;
    }
  }
}
