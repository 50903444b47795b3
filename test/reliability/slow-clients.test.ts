import { expect } from 'chai';
import net from 'node:net';
import { startServer, type RunningServer } from '../../interfaces/http/server.js';
import { auth, buildTestApp } from '../support/test-app.js';
import { figures, record } from './reliability-kit.js';
import { appParts } from '../../infrastructure/composition-root.js';

interface Probe {
  socket: net.Socket;
  closed: Promise<number>;
  received: () => string;
}

function connect(port: number): Promise<Probe> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    const opened = Date.now();
    socket.on('data', (d) => (text += d));
    socket.on('error', () => undefined);
    const closed = new Promise<number>((r) => socket.on('close', () => r(Date.now() - opened)));
    socket.once('connect', () => resolve({ socket, closed, received: () => text }));
    socket.once('error', reject);
  });
}

/** Writes `text` one byte every `everyMs` until the socket closes. */
function trickle(socket: net.Socket, text: string, everyMs: number): void {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || i >= text.length) return clearInterval(timer);
    socket.write(text[i++]);
  }, everyMs);
  socket.on('close', () => clearInterval(timer));
}

async function healthy(url: string): Promise<number> {
  const t = Date.now();
  const res = await fetch(`${url}/api/v1/tools`, { headers: auth, signal: AbortSignal.timeout(2000) });
  expect(res.status).to.equal(200);
  await res.arrayBuffer();
  return Date.now() - t;
}

describe('reliability: slow clients and idle connections', function () {
  this.timeout(60_000);
  let running: RunningServer;
  let port: number;

  before(async () => {
    const { container } = buildTestApp({
      SVC_HEADERS_TIMEOUT_MS: '1000',
      SVC_REQUEST_TIMEOUT_MS: '2000',
      SVC_KEEPALIVE_TIMEOUT_MS: '500',
      SVC_MAX_CONNECTIONS: '300',
      SVC_RATE_LIMIT_ENABLED: 'false',
    });
    running = await startServer(appParts(container));
    port = Number(new URL(running.url).port);
  });
  after(() => running?.close());

  it('sets the timeouts it documents (defaults: headers 30 s, request 300 s, keep-alive 5 s, 1024 connections)', async () => {
    const { container } = buildTestApp({});
    const defaults = await startServer(appParts(container));
    try {
      expect(defaults.server.headersTimeout).to.equal(30_000);
      expect(defaults.server.requestTimeout).to.equal(300_000);
      expect(defaults.server.keepAliveTimeout).to.equal(5_000);
      expect(defaults.server.maxConnections).to.equal(1024);
    } finally {
      await defaults.close();
    }
  });

  it('closes 100 clients trickling headers after the headers timeout, and serves others meanwhile', async () => {
    const probes = await Promise.all(Array.from({ length: 100 }, () => connect(port)));
    for (const p of probes)
      trickle(p.socket, `GET /api/v1/tools HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${auth.Authorization}\r\nX-Slow: ${'a'.repeat(200)}\r\n\r\n`, 100);
    figures.faultsInjected += probes.length;
    const latencies = [];
    for (let i = 0; i < 5; i++) latencies.push(await healthy(running.url));
    const lifetimes = await Promise.all(probes.map((p) => p.closed));
    record(
      'slowloris headers (100 sockets)',
      `closed after ${Math.min(...lifetimes)}-${Math.max(...lifetimes)} ms; others served in <= ${Math.max(...latencies)} ms`,
    );
    expect(Math.max(...lifetimes)).to.be.below(4000);
    for (const p of probes) expect(p.received()).to.match(/^$|^HTTP\/1\.1 408/);
  });

  it('closes 100 clients trickling a body after the request timeout, and serves others meanwhile', async () => {
    const probes = await Promise.all(Array.from({ length: 100 }, () => connect(port)));
    for (const p of probes) {
      p.socket.write(
        `POST /api/v1/tools/version HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${auth.Authorization}\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n`,
      );
      trickle(p.socket, `{"a":"${'x'.repeat(4990)}"}`, 100);
    }
    figures.faultsInjected += probes.length;
    const latencies = [];
    for (let i = 0; i < 5; i++) latencies.push(await healthy(running.url));
    const lifetimes = await Promise.all(probes.map((p) => p.closed));
    record(
      'slowloris body (100 sockets)',
      `closed after ${Math.min(...lifetimes)}-${Math.max(...lifetimes)} ms; others served in <= ${Math.max(...latencies)} ms`,
    );
    expect(Math.max(...lifetimes)).to.be.below(5000);
    expect(Math.min(...lifetimes)).to.be.at.least(1500);
  });

  it('closes idle keep-alive connections and silent ones, and refuses connections past the bound', async () => {
    // 100 keep-alive connections left idle after one request each
    const kept = await Promise.all(Array.from({ length: 100 }, () => connect(port)));
    for (const p of kept) p.socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    // 250 more that never send a byte: the bound of 300 is passed
    const silent = await Promise.all(Array.from({ length: 250 }, () => connect(port)));
    figures.faultsInjected += kept.length + silent.length;
    const all = await Promise.all([...kept, ...silent].map((p) => p.closed));
    for (const p of kept) expect(p.received()).to.match(/^HTTP\/1\.1 200/);
    record('idle connections (350 sockets, bound 300)', `all closed within ${Math.max(...all)} ms`);
    expect(Math.max(...all)).to.be.below(4000);
    await healthy(running.url);
  });
});
