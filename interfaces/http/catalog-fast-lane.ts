import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { parse as parseQuery } from 'node:querystring';
import type { DependencyContainer } from 'tsyringe';
import type { ListTools } from '../../application/list-tools.js';
import type { Logger } from '../../domain/ports/logger.js';
import type { Config } from '../../infrastructure/config/config.js';
import { TOKENS } from '../../infrastructure/tokens.js';
import { catalogFilters, CATALOG_QUERY_KEYS } from './catalog-query.js';
import { API_VERSION } from './envelope.js';
import { bearerChecker } from './middleware/auth.js';
import { isLocalHostHeader, runsOpenOnLoopback } from './middleware/local-host-guard.js';
import { beginRequest } from './middleware/request-context.js';
import { HTTP_ERROR_CODES } from './http-errors.js';
import { toCatalogEntry } from './tool-catalog-entry.js';

/** Distinct filter combinations whose serialized answer is kept. */
const MAX_CACHED_ANSWERS = 256;
const KNOWN_KEYS = new Set<string>(CATALOG_QUERY_KEYS);

/**
 * The catalog is the hottest read and is fixed for the life of a process (the
 * tool registry never changes), so its authorised, well-formed requests are
 * answered here from pre-serialized `data` bytes, before express. Anything
 * else (another method or path, an unknown or repeated query parameter, a
 * missing or wrong token) returns false and goes to the express app, which
 * stays the one definition of behaviour; a test holds both to the same bytes.
 */
export function catalogFastLane(container: DependencyContainer): (req: IncomingMessage, res: ServerResponse) => boolean {
  const config = container.resolve<Config>(TOKENS.Config);
  const logger = container.resolve<Logger>(TOKENS.Logger);
  const listTools = container.resolve<ListTools>(TOKENS.ListTools);
  const check = bearerChecker(config.server.authToken);
  const open = runsOpenOnLoopback(config);
  const pending = new Map<string, Promise<Buffer>>();
  // Answers already computed, served without a promise hop.
  const ready = new Map<string, Buffer>();
  // The Authorization header a keep-alive connection last passed with: the same
  // client repeating the same header is not hashed again. Only headers that
  // passed are kept, so the comparison can tell nothing about the token.
  const passed = new WeakMap<Socket, string>();

  const answerFor = (key: string, query: Record<string, string>) => {
    let answer = pending.get(key);
    if (!answer) {
      answer = listTools
        .execute(catalogFilters(query.category, query.tag, query.tags, query.search))
        .then((tools) => {
          const head = Buffer.from(`{"success":true,"data":${JSON.stringify({ tools: tools.map(toCatalogEntry) })},"meta":`);
          if (ready.size >= MAX_CACHED_ANSWERS) ready.delete(ready.keys().next().value as string);
          ready.set(key, head);
          return head;
        })
        .finally(() => pending.delete(key));
      pending.set(key, answer);
    }
    return answer;
  };

  const send = (res: ServerResponse, requestId: string, head: Buffer) => {
    // The cached head (envelope up to "meta":) is copied as is; only meta is new. One buffer, one write.
    const tail = `{"timestamp":"${new Date().toISOString()}","requestId":"${requestId}","version":"${API_VERSION}"}}`;
    const body = Buffer.allocUnsafe(head.length + tail.length);
    head.copy(body, 0);
    body.write(tail, head.length, 'latin1');
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
    res.end(body);
  };

  const authorised = (req: IncomingMessage) => {
    const header = req.headers.authorization;
    if (header !== undefined && passed.get(req.socket) === header) return true;
    if (check(header) !== 'ok') return false;
    if (header !== undefined) passed.set(req.socket, header);
    return true;
  };

  return (req, res) => {
    if (req.method !== 'GET') return false;
    const url = req.url ?? '';
    const q = url.indexOf('?');
    if ((q === -1 ? url : url.slice(0, q)) !== '/api/v1/tools') return false;
    const query: Record<string, string> = {};
    if (q !== -1) {
      for (const [k, v] of Object.entries(parseQuery(url.slice(q + 1)))) {
        if (!KNOWN_KEYS.has(k) || typeof v !== 'string') return false;
        query[k] = v;
      }
    }
    if (!authorised(req)) return false;
    if (open && !isLocalHostHeader(req.headers.host)) return false;

    const { requestId } = beginRequest(logger, 'GET', '/api/v1/tools', res);
    const key = JSON.stringify([query.category, query.tag, query.tags, query.search]);
    const head = ready.get(key);
    if (head) {
      send(res, requestId, head);
      return true;
    }
    answerFor(key, query).then(
      (computed) => send(res, requestId, computed),
      () => {
        res.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' });
        const meta = { timestamp: new Date().toISOString(), requestId, version: API_VERSION };
        res.end(JSON.stringify({ success: false, error: { code: HTTP_ERROR_CODES.INTERNAL_ERROR, message: 'Internal server error' }, meta }));
      },
    );
    return true;
  };
}
