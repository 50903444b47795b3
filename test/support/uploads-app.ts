import 'reflect-metadata';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { DependencyContainer } from 'tsyringe';
import type { Logger } from '../../domain/ports/logger.js';
import { appParts, buildContainer, type Overrides } from '../../infrastructure/composition-root.js';
import { loadConfig } from '../../infrastructure/config/config.js';
import { TOKENS } from '../../infrastructure/tokens.js';
import type { InMemoryIngestedSourceStore } from '../../infrastructure/uploads/in-memory-ingested-source-store.js';
import { createApp } from '../../interfaces/http/app.js';

export const UPLOAD_TOKEN = 'uploads-test-bearer-token-0123456789';
export const uploadAuth = { Authorization: `Bearer ${UPLOAD_TOKEN}` };
export const SOURCES = '/api/v1/prompts/sources';

const quiet: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => quiet,
};

export interface UploadsApp {
  app: Express;
  container: DependencyContainer;
  /** The real in-memory store the app uses. */
  store: InMemoryIngestedSourceStore;
}

/** The real app with the real in-memory source store, configured from an environment map. */
export function buildUploadsApp(env: Record<string, string> = {}, overrides: Overrides = {}): UploadsApp {
  const config = loadConfig({ HOST: '127.0.0.1', PORT: '0', SVC_AUTH_TOKEN: UPLOAD_TOKEN, LOG_LEVEL: 'silent', ...env });
  const container = buildContainer(config, { logger: quiet, ...overrides });
  return { app: createApp(appParts(container)), container, store: container.resolve(TOKENS.IngestedSourceStore) as InMemoryIngestedSourceStore };
}

/** Listens on 127.0.0.1:0; the caller closes it. */
export async function listen(app: Express): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

export interface RawAnswer {
  status?: number;
  /** Lower-cased names. */
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection after answering (waited for up to 10 s when asked to). */
  closed: boolean;
  /** Body bytes the client handed to its socket. */
  written: number;
  clientError?: string;
}

/**
 * POSTs a body (a buffer, or `chunk` repeated up to `total` bytes) over a raw
 * TCP connection that asks for keep-alive, so the socket stays open unless the
 * server closes it. Plain `net` rather than http.request: the test setup's nock
 * wraps http clients and takes over their connection handling. The EPIPE or
 * ECONNRESET a client may see after a server answered early and closed is
 * recorded, not thrown.
 */
export function rawPost(
  port: number,
  opts: {
    headers: Record<string, string | number>;
    body: Buffer | { chunk: Buffer; total: number };
    chunked?: boolean;
    waitForClose?: boolean;
  },
): Promise<RawAnswer> {
  return new Promise<RawAnswer>((resolve) => {
    const answer: RawAnswer = { headers: {}, body: '', closed: false, written: 0 };
    const socket = net.connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (!answer.closed) socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(finish, 10_000);
    socket.on('error', (e: NodeJS.ErrnoException) => (answer.clientError = e.code));
    socket.on('close', () => {
      answer.closed = true;
      finish();
    });
    socket.on('data', (d: Buffer) => {
      received = Buffer.concat([received, d]);
      const end = received.indexOf('\r\n\r\n');
      if (end === -1 || answer.status !== undefined) return;
      const [statusLine, ...lines] = received.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = Number(headers['content-length'] ?? 0);
      if (received.length < end + 4 + length) return;
      answer.status = Number(statusLine.split(' ')[1]);
      answer.headers = headers;
      answer.body = received.subarray(end + 4, end + 4 + length).toString('utf8');
      if (!opts.waitForClose) finish();
    });
    const head = Object.entries({ Host: `127.0.0.1:${port}`, Connection: 'keep-alive', ...opts.headers })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    socket.write(`POST ${SOURCES} HTTP/1.1\r\n${head}${opts.chunked ? 'Transfer-Encoding: chunked\r\n' : ''}\r\n`);
    const { chunk, total } = Buffer.isBuffer(opts.body) ? { chunk: opts.body, total: opts.body.length } : opts.body;
    const pump = () => {
      while (answer.written < total && !socket.destroyed && !done) {
        const part = chunk.subarray(0, Math.min(chunk.length, total - answer.written));
        answer.written += part.length;
        const more = opts.chunked
          ? socket.write(Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]))
          : socket.write(part);
        if (!more) return void socket.once('drain', pump);
      }
      if (opts.chunked && !socket.destroyed && !done) socket.write('0\r\n\r\n');
    };
    pump();
  });
}
