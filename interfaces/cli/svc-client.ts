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

  delete<T>(path: string): Promise<T> {
    return this.send<T>('DELETE', path, {});
  }

  /** POST asking for `Prefer: respond-async`: `started` when the server answered 202 with a run, else the synchronous data. */
  async postAsync<T, R>(path: string, body: unknown): Promise<{ started: true; run: R } | { started: false; data: T }> {
    let status = 0;
    const data = await this.send<T | R>('POST', path, {}, JSON.stringify(body), { prefer: 'respond-async' }, (s) => (status = s));
    return status === 202 ? { started: true, run: data as R } : { started: false, data: data as T };
  }

  /**
   * Reads a text/event-stream until it ends or `signal` aborts, calling
   * `onEvent` with each message's event name and parsed data; heartbeats are
   * comments and never reach it. Resolves with the id of the last message.
   */
  async stream(path: string, lastEventId: number, onEvent: (event: string, data: unknown) => void, signal?: AbortSignal): Promise<number> {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (this.target.token) headers.authorization = `Bearer ${this.target.token}`;
    if (lastEventId > 0) headers['last-event-id'] = String(lastEventId);
    const res = await this.reach(new URL(this.target.url + path), { headers, signal });
    if (!res.ok) return this.refused(res, await res.text());
    let last = lastEventId;
    let buffer = '';
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        let event = 'message';
        let data = '';
        for (const line of block.split('\n')) {
          if (line.startsWith('event: ')) event = line.slice(7);
          else if (line.startsWith('data: ')) data += line.slice(6);
          else if (line.startsWith('id: ')) last = Number(line.slice(4)) || last;
        }
        if (data) onEvent(event, JSON.parse(data));
      }
    }
    return last;
  }

  /** POST of a body already serialised (its size was checked against a limit). */
  postJsonText<T>(path: string, json: string): Promise<T> {
    return this.send<T>('POST', path, {}, json);
  }

  private async send<T>(
    method: string,
    path: string,
    query: Query,
    body?: string,
    extra: Record<string, string> = {},
    onStatus?: (status: number) => void,
  ): Promise<T> {
    const url = new URL(this.target.url + path);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, v);
    const headers: Record<string, string> = { accept: 'application/json', ...extra };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.target.token) headers.authorization = `Bearer ${this.target.token}`;
    const res = await this.reach(url, { method, headers, body });
    onStatus?.(res.status);
    const text = await res.text();
    return this.refused<T>(res, text);
  }

  private async reach(url: URL, init: RequestInit): Promise<Response> {
    try {
      return await fetch(url, init);
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err;
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
      throw new RequestFailed('UNREACHABLE', `Cannot reach svc at ${this.target.url} (${why}); is it running? Set --url or SVC_URL`);
    }
  }

  /** The envelope's data, or RequestFailed with the server's error. */
  private refused<T>(res: Response, text: string): T {
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
