import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { AppParts } from '../../infrastructure/composition-root.js';
import { catalogFilters, CATALOG_QUERY_KEYS } from './catalog-query.js';
import { API_VERSION, envelopeHead } from './envelope.js';
import { isoNow } from './middleware/request-context.js';
import { isPromptRenderPath, isPromptsListPath, promptLanes, type Lane, type LaneAnswer } from './fast-prompt-answers.js';
import { KeptAnswers, type KeptAnswersLimits } from './kept-answers.js';
import { openApiDocumentOf } from './openapi-document.js';
import { refuse, type GateContext } from './request-gate.js';
import { toCatalogEntry } from './tool-catalog-entry.js';

/** Over every fast route: catalog filters, the OpenAPI document, prompt lists and renders. */
export const KEPT_ANSWER_LIMITS: KeptAnswersLimits = { maxAnswers: 512, maxBytes: 16 * 1024 * 1024 };
const KNOWN_KEYS = new Set<string>(CATALOG_QUERY_KEYS);
const JSON_TYPE = 'application/json; charset=utf-8';
const CATALOG_GROUP = 'catalog';
/** The key of the unfiltered catalog, as a query with no known key spells it. */
const NO_FILTERS = JSON.stringify([undefined, undefined, undefined, undefined]);

/**
 * Answers a request that passed the gate. false: express answers it now.
 * true: the lane owns it, and either answers or hands it to `fallThrough` (express) later.
 */
export type FastAnswers = (
  req: IncomingMessage,
  res: ServerResponse,
  context: GateContext,
  fallThrough: (req: IncomingMessage, res: ServerResponse) => void,
) => boolean;

/**
 * The kept bytes, then (for an envelope) a fresh meta, without copying the
 * kept bytes: corked, the headers and both chunks leave in one writev.
 */
function sendBytes(res: ServerResponse, requestId: string, head: Buffer, tail = ''): void {
  res.writeHead(200, { 'X-Request-Id': requestId, 'Content-Type': JSON_TYPE, 'Content-Length': head.length + tail.length });
  if (tail === '') {
    res.end(head);
    return;
  }
  res.cork();
  res.write(head);
  res.end(tail, 'latin1');
  res.uncork();
}

/** A kept envelope head, then a fresh meta and the closing brace (all ASCII, so its length is its byte length); or an error envelope. */
function sendEnvelope(res: ServerResponse, requestId: string, head: LaneAnswer): void {
  if (!Buffer.isBuffer(head)) return refuse(res, requestId, head);
  sendBytes(res, requestId, head, `{"timestamp":"${isoNow()}","requestId":"${requestId}","version":"${API_VERSION}"}}`);
}

/**
 * Answers that cannot change until something known happens, served from bytes
 * kept ready (KeptAnswers), after the request gate (auth, Host check, request
 * id, access line) and before express: the tool catalog and its filters, the
 * OpenAPI document (the tool registry is fixed for the life of a process), and
 * a cached prompt source's list and renders (kept under the library they came
 * from; see fast-prompt-answers.ts). Anything else (another method or path,
 * an unknown or repeated query parameter, a per-request repository, a body
 * the render lane cannot be sure of, a source not loaded) goes to the express
 * app, which stays the one definition of behaviour; a test holds both to the
 * same status, headers and body. A failure here is logged with the request id
 * and the request falls through to express.
 */
export function fastAnswers(parts: AppParts, limits: KeptAnswersLimits = KEPT_ANSWER_LIMITS): FastAnswers {
  const { list: listTools, registry } = parts.tools;
  const kept = new KeptAnswers(limits);
  const prompts = promptLanes(parts.prompts, kept);
  // concurrent first requests for one filter combination share one computation
  const pending = new Map<string, Promise<Buffer>>();
  let openapi: Buffer | undefined;

  const catalog: Lane = (req) => {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    if (q === -1) return catalogOf(NO_FILTERS, {});
    const query: Record<string, string> = {};
    for (const [k, v] of Object.entries(parseQuery(url.slice(q + 1)))) {
      if (!KNOWN_KEYS.has(k) || typeof v !== 'string') return undefined;
      query[k] = v;
    }
    return catalogOf(JSON.stringify([query.category, query.tag, query.tags, query.search]), query);
  };

  const catalogOf = (key: string, query: Record<string, string>): ReturnType<Lane> => {
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
        sendBytes(res, context.requestId, openapi);
        return true;
      }
      const lane = laneOf(req, context.path);
      if (!lane) return false;
      answer = lane(req);
      if (answer === undefined) return false;
      if (!(answer instanceof Promise)) {
        sendEnvelope(res, context.requestId, answer);
        return true;
      }
    } catch (err) {
      failed(context, err);
      return res.headersSent;
    }
    answer
      .then((head) => (head ? sendEnvelope(res, context.requestId, head) : fallThrough(req, res)))
      .catch((err: unknown) => {
        failed(context, err);
        if (!res.headersSent) fallThrough(req, res);
      });
    return true;
  };
}
