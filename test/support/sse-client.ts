import http from 'node:http';

export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
}

export interface SseStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Parsed messages so far, in order (comments excluded). */
  messages: SseMessage[];
  /** Comment lines (`: heartbeat`) so far. */
  comments: string[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  /** Resolves once `predicate` holds over the messages (checked on every chunk). */
  until(predicate: (s: SseStream) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** A minimal text/event-stream client over node:http, for asserting what the wire carries. */
export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { Accept: 'text/event-stream', ...headers } }, (res) => {
      let buffer = '';
      const waiters: Array<() => void> = [];
      let endResolve!: () => void;
      const stream: SseStream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        messages: [],
        comments: [],
        ended: new Promise<void>((r) => (endResolve = r)),
        until(predicate, timeoutMs = 5000) {
          return new Promise((ok, fail) => {
            const timer = setTimeout(
              () => fail(new Error(`SSE condition not met in ${timeoutMs} ms; got ${JSON.stringify(stream.messages.map((m) => m.event))}`)),
              timeoutMs,
            );
            const check = (): void => {
              if (predicate(stream)) {
                clearTimeout(timer);
                ok();
              } else waiters.push(check);
            };
            check();
          });
        },
        close: () => req.destroy(),
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const m: SseMessage = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) stream.comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) m.id = line.slice(4);
            else if (line.startsWith('event: ')) m.event = line.slice(7);
            else if (line.startsWith('data: ')) m.data = line.slice(6);
          }
          if (m.event || m.data) stream.messages.push(m);
        }
        for (const w of waiters.splice(0)) w();
      });
      res.on('end', () => {
        endResolve();
        for (const w of waiters.splice(0)) w();
      });
      res.on('error', () => endResolve());
      resolve(stream);
    });
    req.on('error', reject);
  });
}
