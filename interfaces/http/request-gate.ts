import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { ANONYMOUS_CALLER, type Caller } from '../../domain/auth/caller.js';
import { missingRole } from '../../domain/auth/tool-access.js';
import { leastRoleBeforeCluster } from '../../domain/fleet/cluster-profile.js';
import type { Authenticator } from '../../domain/ports/authenticator.js';
import type { Logger } from '../../domain/ports/logger.js';
import { NO_METRICS, type Metrics } from '../../domain/ports/metrics.js';
import type { RateLimiter, RateVerdict } from '../../domain/ports/rate-limiter.js';
import type { Config } from '../../infrastructure/config/config.js';
import type { AppParts } from '../../infrastructure/composition-root.js';
import type { RateLimitConfig } from '../../infrastructure/config/rate-limit-config.js';
import { DOCS_PATH, isDocsPath } from './docs-page.js';

import { answerHealthz, isHealthProbe } from './healthz.js';
import { HTTP_ERROR_CODES } from './http-errors.js';
import { callerKey, identityOf, type Identity } from './gate-identity.js';
import { isLocalHostHeader, runsOpenOnLoopback } from './middleware/local-host-guard.js';
import { beginRequest, noteCaller } from './middleware/request-context.js';
import { refuse } from './refuse.js';
import { roleForRoute } from './route-roles.js';

export { refuse };

/** What the gate hands on to whatever answers the request. */
export interface GateContext {
  requestId: string;
  log: Logger;
  /** The path without the query string. */
  path: string;
  /** Who is calling; undefined on a public path of a server that requires a token (nobody was asked who they are). */
  caller?: Caller;
}

const GATED = Symbol('svc.request-gate');
type GatedRequest = IncomingMessage & { [GATED]?: GateContext };

/** The context the gate gave this request, or undefined when it has not passed one. */
export function gateContextOf(req: IncomingMessage): GateContext | undefined {
  return (req as GatedRequest)[GATED];
}

/** Reachable without a bearer token (SPEC.md, Authentication 1 and 2), plus the /docs page (and /metrics with SVC_METRICS_PUBLIC). */
const PUBLIC_PATHS = new Set(['/healthz', '/api/v1/openapi']);
export const METRICS_PATH = '/metrics';
const TOOL_PREFIX = '/api/v1/tools/';

/** The tools whose calls spend model tokens: those tagged `ai`. */
export function aiToolNames(tools: readonly { name: string; tags: readonly string[] }[]): Set<string> {
  return new Set(tools.filter((t) => t.tags.includes('ai')).map((t) => t.name));
}

/** A verdict now (in-process counters) or later (counters shared through Redis). */
export type GateResult = GateContext | undefined | Promise<GateContext | undefined>;
export type Gate = ((req: IncomingMessage, res: ServerResponse) => GateResult) & {
  /** The tools whose calls count in the AI budget. */
  aiTools: ReadonlySet<string>;
  /**
   * Counts `calls` AI tool calls made inside one request that passed the gate
   * (MCP `tools/call` messages, which the gate cannot see: it never reads
   * bodies) against the caller's AI budget, as `POST /api/v1/tools/{ai tool}`
   * is counted. false: over the budget, and the 429 is answered.
   */
  chargeAiCalls(req: IncomingMessage, res: ServerResponse, calls: number): Promise<boolean>;
};

/** Runs `then` with the gate's context once it is known; a gate failure answers 500 (it never should). */
export function afterGate(result: GateResult, res: ServerResponse, then: (context: GateContext) => void): void {
  if (!(result instanceof Promise)) {
    if (result) then(result);
    return;
  }
  result.then(
    (context) => context && then(context),
    () => {
      if (!res.headersSent)
        refuse(res, gateContextOf(res.req)?.requestId ?? 'unknown', { code: HTTP_ERROR_CODES.INTERNAL_ERROR, message: 'Internal server error' });
    },
  );
}

/**
 * Everything that runs once per request, in one place, for the express app and
 * for the answers served before it: the request id and access line, `/healthz`
 * (a probe, answered before any routing), the open-loopback Host check and the
 * bearer check. Returns the context when the request may go on, undefined when
 * the gate answered it (healthz, 401, 403). A second call on the same request
 * (the express app behind the node:http server) returns the first context.
 */
export function requestGate(
  config: Config,
  logger: Logger,
  limiter?: RateLimiter,
  aiTools: ReadonlySet<string> = new Set(),
  authenticator?: Authenticator,
  metrics: Metrics = NO_METRICS,
): Gate {
  const limits = limiter && config.rateLimit?.enabled ? rateLimits(config.rateLimit, limiter, aiTools, metrics) : undefined;
  const metricsPublic = config.server.metricsPublic === true;
  // a cluster's own role mapping decides the caller's role there: the tool call is judged once its cluster is known
  const profiles = config.cluster.fleet?.members.map((m) => m.profile) ?? [];
  const leastRoleOf = (tool: string) => leastRoleBeforeCluster(profiles, tool);
  const open = runsOpenOnLoopback(config);
  if (config.server.authRequired && !authenticator) throw new Error('the request gate needs an authenticator when identities are configured');
  const identify = authenticator && identityOf(authenticator);

  const chargeAiCalls = async (req: IncomingMessage, res: ServerResponse, calls: number): Promise<boolean> => {
    if (!limits) return true;
    const requestId = gateContextOf(req)?.requestId ?? 'unknown';
    for (let i = 0; i < calls; i++) {
      if (!(await limits.check(res, requestId, limits.ai, `addr:${req.socket.remoteAddress ?? 'unknown'}`))) return false;
      const caller = gateContextOf(req)?.caller;
      if (identify && caller && !(await limits.check(res, requestId, limits.ai, `id:${callerKey(caller)}`))) return false;
    }
    return true;
  };

  const gate = (req: IncomingMessage, res: ServerResponse): GateResult => {
    const seen = gateContextOf(req);
    if (seen) return seen;
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const { requestId, log } = beginRequest(logger, req.method ?? 'GET', path, res, metrics);
    const context: GateContext = { requestId, log, path };
    (req as GatedRequest)[GATED] = context;

    if (isHealthProbe(req.method, path)) {
      answerHealthz(req, res, requestId);
      return undefined;
    }
    if (open && !isLocalHostHeader(req.headers.host)) {
      refuse(res, requestId, {
        code: HTTP_ERROR_CODES.FORBIDDEN,
        message:
          'This server runs without SVC_AUTH_TOKEN and answers only requests addressed to localhost, 127.0.0.1 or [::1]; set SVC_AUTH_TOKEN to serve other host names',
      });
      return undefined;
    }
    const budget = limits?.budgetOf(req.method, path);
    const byAddress = budget && limits!.check(res, requestId, budget, `addr:${req.socket.remoteAddress ?? 'unknown'}`);
    if (byAddress instanceof Promise) return byAddress.then((ok) => (ok ? authorise() : undefined));
    if (byAddress === false) return undefined;
    return authorise();

    function authorise(): GateResult {
      if (!identify) {
        context.caller = ANONYMOUS_CALLER;
        return context;
      }
      if (isPublic(req.method, path) || (metricsPublic && isMetricsPath(req.method, path))) return context;
      const who = identify(req);
      return who instanceof Promise ? who.then(admit) : admit(who);
    }

    function admit(who: Identity): GateResult {
      if ('refused' in who && who.forbidden) {
        if (hasBody(req)) res.setHeader('Connection', 'close');
        refuse(res, requestId, { code: HTTP_ERROR_CODES.FORBIDDEN, message: `Forbidden: ${who.refused}; svc never acts for Kubernetes' own users and groups` });
        return undefined;
      }
      if ('missing' in who || 'refused' in who) {
        res.setHeader('WWW-Authenticate', 'Bearer realm="svc"');
        // An unauthenticated body is never read: close instead of draining it for keep-alive.
        if (hasBody(req)) res.setHeader('Connection', 'close');
        refuse(res, requestId, {
          code: HTTP_ERROR_CODES.UNAUTHORIZED,
          message: 'refused' in who ? `Invalid bearer token: ${who.refused}` : 'Missing bearer token: send Authorization: Bearer <token>',
        });
        return undefined;
      }
      context.caller = who;
      noteCaller(res, who);
      const forbidden = missingRole(who, roleForRoute(req.method, path, q === -1 ? undefined : url.slice(q + 1), leastRoleOf), `${req.method} ${path}`);
      if (forbidden) {
        metrics.refusal('role');
        if (hasBody(req)) res.setHeader('Connection', 'close');
        refuse(res, requestId, { code: forbidden.code, message: forbidden.message, details: forbidden.details });
        return undefined;
      }
      if (!budget) return context;
      const byCaller = limits!.check(res, requestId, budget, `id:${callerKey(who)}`);
      if (byCaller instanceof Promise) return byCaller.then((ok) => (ok ? context : undefined));
      return byCaller ? context : undefined;
    }
  };
  return Object.assign(gate, { aiTools, chargeAiCalls });
}

/** The gate of one composition: its config, logger, rate limiter, AI tools, authenticator and metrics. */
export function gateOf(parts: AppParts): Gate {
  return requestGate(parts.config, parts.logger, parts.rateLimiter, aiToolNames(parts.tools.registry.list()), parts.authenticator, parts.metrics);
}

/** GET or HEAD /metrics (with or without a trailing slash). */
function isMetricsPath(method: string | undefined, path: string): boolean {
  return (method === 'GET' || method === 'HEAD') && (path === METRICS_PATH || path === `${METRICS_PATH}/`);
}

/** Reachable without a bearer token: the public paths (with or without trailing slashes) and, for GET, the /docs page and `/` (a redirect to it). */
function isPublic(method: string | undefined, path: string): boolean {
  if (PUBLIC_PATHS.has(path)) return true;
  if (path.length > 1 && path.endsWith('/') && PUBLIC_PATHS.has(path.replace(/\/+$/, ''))) return true;
  // `/` only redirects to the /docs page: no data, like the page itself
  if ((method === 'GET' || method === 'HEAD') && path === '/') return true;
  return method === 'GET' && path.startsWith(DOCS_PATH) && isDocsPath(path);
}

type Budget = { name: 'ai' | 'other'; limit: number; label: string };

/**
 * Per-caller budgets: the AI tools (the tools tagged `ai`, whose every call
 * spends model tokens) have their own, smaller budget. An MCP request counts
 * in the general budget here (the gate does not read JSON-RPC bodies), and
 * each AI tool call in it is charged to the AI budget by the MCP route
 * (`Gate.chargeAiCalls`). /healthz never reaches here.
 */
function rateLimits(config: RateLimitConfig, limiter: RateLimiter, aiTools: ReadonlySet<string>, metrics: Metrics) {
  const windowS = Math.round(config.windowMs / 1000);
  const ai: Budget = { name: 'ai', limit: config.aiPerWindow, label: 'AI tool requests' };
  const other: Budget = { name: 'other', limit: config.otherPerWindow, label: 'requests' };
  const answer = (res: ServerResponse, requestId: string, budget: Budget, v: RateVerdict): boolean => {
    if (v.allowed) return true;
    metrics.rateLimited(budget.name);
    const retryAfter = Math.max(1, Math.ceil(v.resetMs / 1000));
    res.setHeader('Retry-After', String(retryAfter));
    refuse(res, requestId, {
      code: HTTP_ERROR_CODES.RATE_LIMITED,
      message: `Rate limit reached: at most ${budget.limit} ${budget.label} per ${windowS} s per caller; retry after ${retryAfter} s`,
    });
    return false;
  };
  return {
    ai,
    budgetOf(method: string | undefined, path: string): Budget {
      return method === 'POST' && path.startsWith(TOOL_PREFIX) && aiTools.has(path.slice(TOOL_PREFIX.length)) ? ai : other;
    },
    check(res: ServerResponse, requestId: string, budget: Budget, who: string): boolean | Promise<boolean> {
      const v = limiter.hit(`${budget.name}:${who}`, budget.limit, config.windowMs);
      return v instanceof Promise ? v.then((x) => answer(res, requestId, budget, x)) : answer(res, requestId, budget, v);
    },
  };
}

/** The gate as the express app's first middleware: the id goes to the X-Request-Id header, it and the logger to `res.locals`. */
export function gateMiddleware(gate: Gate) {
  return (req: Request, res: Response, next: NextFunction) => {
    afterGate(gate(req, res), res, (context) => {
      res.setHeader('X-Request-Id', context.requestId);
      res.locals.requestId = context.requestId;
      res.locals.log = context.log;
      res.locals.caller = context.caller;
      next();
    });
  };
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
