import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { DependencyContainer } from 'tsyringe';
import { TOKENS } from '../../infrastructure/tokens.js';
import { catalogFilters, CATALOG_QUERY_KEYS } from './catalog-query.js';
import { API_VERSION } from './envelope.js';
import { HTTP_ERROR_CODES } from './http-errors.js';
import { openApiDocumentOf } from './openapi-document.js';
import type { GateContext } from './request-gate.js';
import { toCatalogEntry } from './tool-catalog-entry.js';

/** Distinct catalog filter combinations whose serialized answer is kept. */
const MAX_CACHED_ANSWERS = 256;
const KNOWN_KEYS = new Set<string>(CATALOG_QUERY_KEYS);
const JSON_TYPE = 'application/json; charset=utf-8';

/** Answers a request that passed the gate, or returns false to leave it to the express app. */
export type FastAnswers = (req: IncomingMessage, res: ServerResponse, context: GateContext) => boolean;

/** One buffer, one write: the kept bytes, then (for an envelope) a fresh meta. */
function sendBytes(res: ServerResponse, head: Buffer, tail = ''): void {
  const body = Buffer.allocUnsafe(head.length + tail.length);
  head.copy(body, 0);
  body.write(tail, head.length, 'latin1');
  res.writeHead(200, { 'Content-Type': JSON_TYPE, 'Content-Length': body.length });
  res.end(body);
}

function metaTail(requestId: string): string {
  return `{"timestamp":"${new Date().toISOString()}","requestId":"${requestId}","version":"${API_VERSION}"}}`;
}

/**
 * Answers that cannot change until something known happens, served from bytes
 * kept ready, after the request gate (auth, Host check, request id, access
 * line) and before express: the tool catalog and its filters, and the OpenAPI
 * document (the tool registry is fixed for the life of a process). Anything
 * else (another method or path, an unknown or repeated query parameter)
 * returns false and goes to the express app, which stays the one definition
 * of behaviour; a test holds both to the same status, headers and body. A
 * failure here is logged with the request id and the request falls through.
 */
export function fastAnswers(container: DependencyContainer): FastAnswers {
  const listTools = container.resolve(TOKENS.ListTools);
  const registry = container.resolve(TOKENS.ToolRegistry);
  const pending = new Map<string, Promise<Buffer>>();
  // Catalog envelopes up to `"meta":`, already computed: served without a promise hop.
  const ready = new Map<string, Buffer>();
  let openapi: Buffer | undefined;

  const catalogHead = (key: string, query: Record<string, string>) => {
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

  const catalog = (req: IncomingMessage, res: ServerResponse, context: GateContext): boolean => {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const query: Record<string, string> = {};
    if (q !== -1) {
      for (const [k, v] of Object.entries(parseQuery(url.slice(q + 1)))) {
        if (!KNOWN_KEYS.has(k) || typeof v !== 'string') return false;
        query[k] = v;
      }
    }
    const key = JSON.stringify([query.category, query.tag, query.tags, query.search]);
    const head = ready.get(key);
    if (head) {
      sendBytes(res, head, metaTail(context.requestId));
      return true;
    }
    catalogHead(key, query).then(
      (computed) => sendBytes(res, computed, metaTail(context.requestId)),
      (err: unknown) => {
        context.log.error('catalog answer failed', { err: err instanceof Error ? err.stack : String(err) });
        const body = Buffer.from(JSON.stringify({ success: false, error: { code: HTTP_ERROR_CODES.INTERNAL_ERROR, message: 'Internal server error' } }).slice(0, -1) + ',"meta":');
        res.writeHead(500, { 'Content-Type': JSON_TYPE });
        res.end(Buffer.concat([body, Buffer.from(metaTail(context.requestId))]));
      },
    );
    return true;
  };

  return (req, res, context) => {
    if (req.method !== 'GET') return false;
    try {
      if (context.path === '/api/v1/tools') return catalog(req, res, context);
      if (req.url === '/api/v1/openapi') {
        openapi ??= Buffer.from(JSON.stringify(openApiDocumentOf(registry)));
        sendBytes(res, openapi);
        return true;
      }
    } catch (err) {
      context.log.error('fast answer failed; express answers instead', { path: context.path, err: err instanceof Error ? err.stack : String(err) });
      return res.headersSent ? true : false;
    }
    return false;
  };
}
