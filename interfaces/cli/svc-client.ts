import { RequestFailed } from './cli-errors.js';
import type { CliTarget } from './cli-config.js';

interface Envelope<T> {
  success: boolean;
  data?: T;
  error?: { code: string; message: string; details?: unknown };
}

export type Query = Record<string, string | undefined>;

/**
 * The CLI's only way to the server: REST over fetch, the envelope unwrapped.
 * An error envelope or an unreachable server becomes RequestFailed; the token
 * travels only in the Authorization header and is never part of a message.
 */
export class SvcClient {
  constructor(private readonly target: CliTarget) {}

  get<T>(path: string, query: Query = {}): Promise<T> {
    return this.send<T>('GET', path, query);
  }

  post<T>(path: string, body: unknown, query: Query = {}): Promise<T> {
    return this.send<T>('POST', path, query, JSON.stringify(body));
  }

  /** POST of a body already serialised (its size was checked against a limit). */
  postJsonText<T>(path: string, json: string): Promise<T> {
    return this.send<T>('POST', path, {}, json);
  }

  private async send<T>(method: string, path: string, query: Query, body?: string): Promise<T> {
    const url = new URL(this.target.url + path);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, v);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.target.token) headers.authorization = `Bearer ${this.target.token}`;
    let res: Response;
    try {
      res = await fetch(url, { method, headers, body });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
      throw new RequestFailed('UNREACHABLE', `Cannot reach svc at ${this.target.url} (${why}); is it running? Set --url or SVC_URL`);
    }
    const text = await res.text();
    let envelope: Envelope<T>;
    try {
      envelope = JSON.parse(text) as Envelope<T>;
    } catch {
      throw new RequestFailed('BAD_RESPONSE', `Unexpected non-JSON response from ${this.target.url} (HTTP ${res.status})`, res.status);
    }
    if (!res.ok || envelope.success !== true) {
      const e = envelope.error;
      throw new RequestFailed(e?.code ?? `HTTP_${res.status}`, e?.message ?? `HTTP ${res.status}`, res.status, e?.details);
    }
    return envelope.data as T;
  }
}
