import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { DependencyContainer } from 'tsyringe';
import { TOKENS } from '../../infrastructure/tokens.js';
import { catalogFilters, CATALOG_QUERY_KEYS } from './catalog-query.js';
import { API_VERSION } from './envelope.js';
import { envelopeHead, isPromptRenderPath, isPromptsListPath, promptLanes, type Lane } from './fast-prompt-answers.js';
import { KeptAnswers, type KeptAnswersLimits } from './kept-answers.js';
import { openApiDocumentOf } from './openapi-document.js';
import type { GateContext } from './request-gate.js';
import { toCatalogEntry } from './tool-catalog-entry.js';

/** Over every fast route: catalog filters, the OpenAPI document, prompt lists and renders. */
export const KEPT_ANSWER_LIMITS: KeptAnswersLimits = { maxAnswers: 512, maxBytes: 16 * 1024 * 1024 };
const KNOWN_KEYS = new Set<string>(CATALOG_QUERY_KEYS);
const JSON_TYPE = 'application/json; charset=utf-8';
const CATALOG_GROUP = 'catalog';

/**
 * Answers a request that passed the gate. false: express answers it now.
 * true: the lane owns it, and either answers or calls `fallThrough` later.
 */
export type FastAnswers = (req: IncomingMessage, res: ServerResponse, context: GateContext, fallThrough: () => void) => boolean;

/**
 * The kept bytes, then (for an envelope) a fresh meta, without copying the
 * kept bytes: corked, the headers and both chunks leave in one writev.
 */
function sendBytes(res: ServerResponse, head: Buffer, tail = ''): void {
  res.writeHead(200, { 'Content-Type': JSON_TYPE, 'Content-Length': head.length + Buffer.byteLength(tail, 'latin1') });
  if (tail === '') {
    res.end(head);
    return;
  }
  res.cork();
  res.write(head);
  res.end(tail, 'latin1');
  res.uncork();
}

function metaTail(requestId: string): string {
  return `{"timestamp":"${new Date().toISOString()}","requestId":"${requestId}","version":"${API_VERSION}"}}`;
}

/**
 * Answers that cannot change until something known happens, served from bytes
 * kept ready (KeptAnswers), after the request gate (auth, Host check, request
 * id, access line) and before express: the tool catalog and its filters, the
 * OpenAPI document (the tool registry is fixed for the life of a process), and
 * a cached prompt source's list and renders without arguments (kept under the
 * library they came from; see fast-prompt-answers.ts). Anything else (another
 * method or path, an unknown or repeated query parameter, a per-request
 * repository, a body with arguments, a source not loaded) goes to the express
 * app, which stays the one definition of behaviour; a test holds both to the
 * same status, headers and body. A failure here is logged with the request id
 * and the request falls through to express.
 */
export function fastAnswers(container: DependencyContainer, limits: KeptAnswersLimits = KEPT_ANSWER_LIMITS): FastAnswers {
  const listTools = container.resolve(TOKENS.ListTools);
  const registry = container.resolve(TOKENS.ToolRegistry);
  const kept = new KeptAnswers(limits);
  const prompts = promptLanes(container, kept);
  // concurrent first requests for one filter combination share one computation
  const pending = new Map<string, Promise<Buffer>>();
  let openapi: Buffer | undefined;

  const catalog: Lane = (req) => {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const query: Record<string, string> = {};
    if (q !== -1) {
      for (const [k, v] of Object.entries(parseQuery(url.slice(q + 1)))) {
        if (!KNOWN_KEYS.has(k) || typeof v !== 'string') return undefined;
        query[k] = v;
      }
    }
    const key = JSON.stringify([query.category, query.tag, query.tags, query.search]);
    const head = kept.get(CATALOG_GROUP, registry, key);
    if (head) return head;
    let answer = pending.get(key);
    if (!answer) {
      answer = listTools
        .execute(catalogFilters(query.category, query.tag, query.tags, query.search))
        .then((tools) => {
          const computed = envelopeHead({ tools: tools.map(toCatalogEntry) });
          kept.put(CATALOG_GROUP, registry, key, computed);
          return computed;
        })
        .finally(() => pending.delete(key));
      pending.set(key, answer);
    }
    return answer;
  };

  const laneOf = (req: IncomingMessage, path: string): Lane | undefined => {
    if (req.method === 'GET') {
      if (path === '/api/v1/tools') return catalog;
      if (isPromptsListPath(path)) return prompts.list;
    } else if (req.method === 'POST' && isPromptRenderPath(path)) {
      return prompts.render;
    }
    return undefined;
  };

  const failed = (context: GateContext, err: unknown) =>
    context.log.error('fast answer failed; express answers instead', { path: context.path, err: err instanceof Error ? err.stack : String(err) });

  return (req, res, context, fallThrough) => {
    let answer: ReturnType<Lane>;
    try {
      if (req.method === 'GET' && req.url === '/api/v1/openapi') {
        openapi ??= Buffer.from(JSON.stringify(openApiDocumentOf(registry)));
        sendBytes(res, openapi);
        return true;
      }
      const lane = laneOf(req, context.path);
      if (!lane) return false;
      answer = lane(req);
      if (answer === undefined) return false;
      if (!(answer instanceof Promise)) {
        sendBytes(res, answer, metaTail(context.requestId));
        return true;
      }
    } catch (err) {
      failed(context, err);
      return res.headersSent;
    }
    answer
      .then((head) => (head ? sendBytes(res, head, metaTail(context.requestId)) : fallThrough()))
      .catch((err: unknown) => {
        failed(context, err);
        if (!res.headersSent) fallThrough();
      });
    return true;
  };
}
