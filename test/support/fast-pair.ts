import { expect } from 'chai';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { startServer, type RunningServer } from '../../interfaces/http/server.js';
import { auth, type TestApp } from './test-app.js';
import { appParts } from '../../infrastructure/composition-root.js';

/** Status, every header but the date and the request id, the body without meta, and the raw body without its timestamp and id. */
export async function snapshot(res: Response) {
  const headers = Object.fromEntries([...res.headers].filter(([k]) => k !== 'date' && k !== 'x-request-id'));
  const text = await res.text();
  const body = JSON.parse(text) as Record<string, unknown>;
  return {
    status: res.status,
    /** The body as sent, its timestamp and request id blanked. */
    raw: text.replace(/"timestamp":"[^"]*"/g, '"timestamp":""').replace(/"requestId":"[^"]*"/g, '"requestId":""'),
    headers,
    body: { ...body, meta: undefined },
    meta: body.meta as { requestId?: string } | undefined,
    requestId: res.headers.get('x-request-id'),
  };
}

/** svc as served (gate, fast answers, express) beside the same app's express alone, on one container. */
export async function pairOf(t: TestApp) {
  // Every request the served express app handles is counted: the app startServer builds is made
  // while express's `handle` is wrapped (express copies it into each app it makes).
  let expressAnswers = 0;
  const proto = express.application as unknown as { handle: (...a: unknown[]) => unknown };
  const handle = proto.handle;
  proto.handle = function (this: unknown, ...a: unknown[]) {
    expressAnswers++;
    return handle.apply(this, a);
  };
  let running: RunningServer;
  try {
    running = await startServer(appParts(t.container));
  } finally {
    proto.handle = handle;
  }
  const plain = http.createServer(t.app).listen(0, '127.0.0.1');
  await new Promise((r) => plain.once('listening', r));
  const plainUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
  /** Sends one request to both; expects the same status, headers but date and request id, and body. */
  const same = async (path: string, init: RequestInit = {}) => {
    const withAuth = { ...init, headers: { ...auth, ...(init.headers as Record<string, string>) } };
    const before = expressAnswers;
    const fast = await snapshot(await fetch(`${running.url}${path}`, withAuth));
    const byFastLane = expressAnswers === before;
    const slow = await snapshot(await fetch(`${plainUrl}${path}`, withAuth));
    expect(fast.status, path).to.equal(slow.status);
    expect(fast.headers, path).to.deep.equal(slow.headers);
    expect(fast.body, path).to.deep.equal(slow.body);
    expect(fast.raw, `${path}: the same bytes`).to.equal(slow.raw);
    if (fast.meta) expect(fast.meta.requestId).to.equal(fast.requestId);
    return { ...fast, byFastLane };
  };
  /**
   * POSTs `body` to svc on a raw socket, the body `delayMs` after the headers
   * (in its own packet); `cut` closes the socket instead of sending the body.
   */
  const split = async (path: string, body: string, delayMs: number, cut = false) => {
    const before = expressAnswers;
    const { port } = new URL(running.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    socket.setNoDelay(true);
    let answer = '';
    socket.on('data', (d) => (answer += d));
    await new Promise((r) => socket.once('connect', r));
    const head = [
      `POST ${path} HTTP/1.1`,
      'Host: 127.0.0.1',
      `Authorization: ${auth.Authorization}`,
      'Content-Type: application/json',
      `Content-Length: ${body.length}`,
      'Connection: close',
    ];
    socket.write(`${head.join('\r\n')}\r\n\r\n`);
    await new Promise((r) => setTimeout(r, delayMs));
    if (cut) socket.destroy();
    else socket.write(body);
    await new Promise((r) => socket.once('close', r));
    const status = Number(/^HTTP\/1\.1 (\d+)/.exec(answer)?.[1] ?? 0);
    const text = answer.slice(answer.indexOf('\r\n\r\n') + 4);
    return { status, body: status ? (JSON.parse(text) as Record<string, unknown>) : undefined, byFastLane: expressAnswers === before };
  };
  /** Sends `count` POSTs of `body` pipelined on one keep-alive connection (the last asks to close); the raw answer. */
  const pipelined = async (path: string, body: string, count: number) => {
    const { port } = new URL(running.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => (answer += d));
    await new Promise((r) => socket.once('connect', r));
    const one = (last: boolean) =>
      [
        `POST ${path} HTTP/1.1`,
        'Host: 127.0.0.1',
        `Authorization: ${auth.Authorization}`,
        'Content-Type: application/json',
        `Content-Length: ${body.length}`,
        `Connection: ${last ? 'close' : 'keep-alive'}`,
        '',
        body,
      ].join('\r\n');
    socket.write(Array.from({ length: count }, (_, i) => one(i === count - 1)).join(''));
    await new Promise((r) => socket.once('close', r));
    return answer;
  };
  const close = async () => {
    await running.close();
    plain.closeAllConnections();
    await new Promise((r) => plain.close(r));
  };
  return { running, plainUrl, same, split, pipelined, close };
}
