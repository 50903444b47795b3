import type { IncomingMessage, ServerResponse } from 'node:http';

const HEALTH_BODY = Buffer.from('{"status":"ok"}');

/** A liveness probe: GET or HEAD of /healthz (answered without a token, before any routing). */
export const isHealthProbe = (method: string | undefined, path: string): boolean => path === '/healthz' && (method === 'GET' || method === 'HEAD');

/** The /healthz answer, the same bytes and headers whether the app is attached yet or not. */
export function answerHealthz(req: IncomingMessage, res: ServerResponse, requestId: string): void {
  res.writeHead(200, { 'X-Request-Id': requestId, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': HEALTH_BODY.length });
  res.end(req.method === 'HEAD' ? undefined : HEALTH_BODY);
}
