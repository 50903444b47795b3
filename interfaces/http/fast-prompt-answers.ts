import type { IncomingMessage } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { ResolvedPromptSource } from '../../application/prompts/prompt-source-resolver.js';
import { NotFoundError, ValidationError } from '../../domain/errors.js';
import type { AppParts } from '../../infrastructure/composition-root.js';
import { envelopeHead, type ErrorBody } from './envelope.js';
import { renderedHead } from './render-head.js';
import { NOT_JSON_BODY, toErrorBody } from './middleware/error-handler.js';
import { renderAskOf, type RenderAsk } from './render-body.js';
import type { KeptAnswers } from './kept-answers.js';

/** An envelope up to `"meta":` (kept or computed), or an error answered as the express error handler answers it. */
export type LaneAnswer = Buffer | ErrorBody;
/** A lane's answer now or later; undefined: leave the request to express. */
export type LaneResult = LaneAnswer | undefined | Promise<LaneAnswer | undefined>;
export type Lane = (req: IncomingMessage) => LaneResult;

const PROMPTS_PATH = '/api/v1/prompts';
const RENDER_PREFIX = `${PROMPTS_PATH}/`;
/** Names express would decode differently, and the routes beside the render route, are left to express. */
const PLAIN_NAME = /^[A-Za-z0-9._-]+$/;
const NOT_A_PROMPT = new Set(['refresh', 'sources']);
/** Longer bodies go to express; well under the request stream's 16 KiB buffer, so a whole body is buffered without being read. */
const MAX_LANE_BODY = 8 * 1024;
const JSON_BODY_TYPE = /^application\/json(?:;\s*charset=utf-8)?$/i;

/** The group the default source (configured repo, else built-ins) is kept in. */
export const DEFAULT_PROMPTS_GROUP = 'prompts:default';
const UPLOAD_GROUP = 'prompts:upload:';

/**
 * The prompt library's fast answers: the list (`GET /api/v1/prompts`, with no
 * query or only `?source=`) and renders (`POST /api/v1/prompts/{name}` with no
 * body or a short JSON body, with or without `arguments`; render-body.ts says
 * which bodies, the rest go to express), of the default source when it is
 * loaded and fresh, or of an uploaded source. The list and renders without
 * arguments are kept bytes; a render with arguments substitutes them into the
 * kept template each time. An unknown prompt, a missing or mistyped argument
 * and a body that is not JSON are answered with the error express gives. The
 * version the kept bytes are checked against on every answer is the library
 * object the resolver serves right now: a refresh, a new clone, a new upload
 * of that identifier or the TTL changes it (or leaves no loaded source), so
 * stale bytes are never served. Per-request repositories, branches, folders
 * and the git token header go to express: none of them is used as a key.
 */
export function promptLanes(prompts: AppParts['prompts'], kept: KeptAnswers): { list: Lane; render: Lane } {
  const { resolver, ingested, list: listPrompts, render: renderPrompt } = prompts;

  /** The source of this request and its group, now or after a store read; undefined: express decides. */
  const sourceOf = (req: IncomingMessage): { group: string; resolved: ResolvedPromptSource | Promise<ResolvedPromptSource> } | undefined => {
    if (req.headers['x-svc-git-token'] !== undefined) return undefined;
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const query = q === -1 ? {} : parseQuery(url.slice(q + 1));
    const keys = Object.keys(query);
    if (keys.length === 0) {
      const resolved = resolver.peekDefault();
      if (!resolved) {
        // not loaded, expired or reloading: whatever was kept is of no use any more
        kept.drop(DEFAULT_PROMPTS_GROUP);
        return undefined;
      }
      return { group: DEFAULT_PROMPTS_GROUP, resolved };
    }
    const source = query.source;
    if (keys.length !== 1 || typeof source !== 'string') return undefined;
    return { group: UPLOAD_GROUP, resolved: ingested.resolve(source) };
  };

  /** The envelope head `compute` makes for this request's source, kept under `key` if given; an unknown prompt or bad arguments answer as express does. */
  const answer = (req: IncomingMessage, compute: (resolved: ResolvedPromptSource) => Buffer, key?: string): LaneResult => {
    const target = sourceOf(req);
    if (!target) return undefined;
    const fromResolved = (resolved: ResolvedPromptSource): LaneAnswer => {
      // an upload is grouped by its scrubbed identifier: the library's identity tells copies apart, never a credential
      const group = target.group === UPLOAD_GROUP ? `${UPLOAD_GROUP}${resolved.source}` : target.group;
      const hit = key === undefined ? undefined : kept.get(group, resolved.library, key);
      if (hit) return hit;
      let head: Buffer;
      try {
        head = compute(resolved);
      } catch (e) {
        // an unknown prompt, a missing or mistyped argument: the error envelope the express error handler writes
        if (e instanceof NotFoundError || e instanceof ValidationError) return toErrorBody(e);
        throw e;
      }
      if (key !== undefined) kept.put(group, resolved.library, key, head);
      return head;
    };
    if (!(target.resolved instanceof Promise)) return fromResolved(target.resolved);
    return target.resolved.then(fromResolved, (e: unknown) => {
      // a source that was never uploaded or was evicted: express gives the 400 with the remedy
      if (e instanceof ValidationError) return undefined;
      throw e;
    });
  };

  const list: Lane = (req) => answer(req, (resolved) => envelopeHead(listPrompts.of(resolved)), 'list');

  const render: Lane = (req) => {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const name = url.slice(RENDER_PREFIX.length, q === -1 ? undefined : q);
    if (!PLAIN_NAME.test(name) || NOT_A_PROMPT.has(name)) return undefined;
    const body = bodyKind(req);
    if (!body) return undefined;
    const renderFor = (ask: RenderAsk): LaneResult => {
      // express.json refuses it before any route runs, whatever the prompt or source
      if (ask === 'not-json') return NOT_JSON_BODY;
      const args = ask.arguments;
      // renders without arguments are kept; with arguments the substitution is done on the kept template each time
      if (args === undefined) return answer(req, (resolved) => envelopeHead(renderPrompt.of(resolved, name)), `render:${name}`);
      return answer(req, (resolved) => renderedHead(renderPrompt.promptOf(resolved, name), resolved.source, args));
    };
    if (body === 'none') return renderFor({ arguments: undefined });
    // The body arrives after the headers: once it is all there, read it; express gets it back unless this lane answers.
    const decide = (complete: boolean): LaneResult => {
      if (!complete) return undefined;
      const chunk = req.read() as Buffer | null;
      if (chunk === null) return undefined;
      const ask = renderAskOf(chunk);
      if (ask === undefined) return putBack(req, chunk);
      const result = renderFor(ask);
      if (result instanceof Promise) {
        // the request may end before the promise settles: give the body back now, drain it if answered
        req.unshift(chunk);
        return result.then((h) => (h && req.resume(), h));
      }
      // answered from a read body: the request ends by itself
      return result ?? putBack(req, chunk);
    };
    // Usually the body came in the same read as the headers: node parses it once this
    // request's handlers (and their microtasks) have run, so it is all there by the
    // check phase. A body sent later is waited for.
    return new Promise((resolve, reject) =>
      setImmediate(() => {
        try {
          resolve(req.complete ? decide(true) : untilComplete(req).then(decide));
        } catch (e) {
          reject(e);
        }
      }),
    );
  };

  return { list, render };
}

/** 'none': no body at all; 'small': a short JSON body worth reading; undefined: leave it to express. */
function bodyKind(req: IncomingMessage): 'none' | 'small' | undefined {
  // a chunked or compressed body is express's to decode
  if (req.headers['transfer-encoding'] !== undefined || req.headers['content-encoding'] !== undefined) return undefined;
  const length = req.headers['content-length'];
  if (length === undefined || length === '0') return 'none';
  if (!/^[1-9]\d{0,4}$/.test(length) || Number(length) > MAX_LANE_BODY) return undefined;
  return JSON_BODY_TYPE.test(req.headers['content-type'] ?? '') ? 'small' : undefined;
}

/**
 * Resolves true once the whole (short) body is buffered, false if the request
 * closes first. Listening for 'readable' pauses the stream without reading it;
 * removing the listener hands the stream back to whoever reads it next.
 */
function untilComplete(req: IncomingMessage): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (complete: boolean) => {
      req.off('readable', onReadable);
      req.off('close', onClose);
      resolve(complete);
    };
    const onReadable = () => req.complete && done(true);
    const onClose = () => done(req.complete);
    req.on('readable', onReadable);
    req.once('close', onClose);
  });
}

/** Gives a read body back to the request, for express; the lane does not answer. */
function putBack(req: IncomingMessage, chunk: Buffer): undefined {
  req.unshift(chunk);
  return undefined;
}

export function isPromptsListPath(path: string): boolean {
  return path === PROMPTS_PATH;
}

export function isPromptRenderPath(path: string): boolean {
  return path.startsWith(RENDER_PREFIX);
}
