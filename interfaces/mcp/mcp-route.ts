import { localhostHostValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import express, { type Request, type Response, type Router } from 'express';
import { callerOf, requestIdOf } from '../http/envelope.js';
import type { Gate } from '../http/request-gate.js';
import { createMcpServer, type McpDependencies } from './mcp-server.js';
import { callerKey } from '../../domain/runs/run.js';

export interface McpRouteOptions {
  /**
   * Refuse Host headers other than localhost, 127.0.0.1 and [::1]. Set when
   * the server runs open (no bearer token) on a loopback bind: without it a
   * web page could reach the tools through DNS rebinding. A bearer token
   * already stops that, and a proxy in front may send its own Host.
   */
  localhostOnly: boolean;
  /** The AI tools' budget, charged per `tools/call` of an AI tool as the REST route charges it. */
  budget: McpAiBudget;
}

/** The request gate's AI tools and its charge (false when over the budget, the 429 already answered). */
export type McpAiBudget = Pick<Gate, 'aiTools' | 'chargeAiCalls'>;

/** The `tools/call` messages for AI tools in a JSON-RPC body (one message or a batch). */
function aiToolCalls(body: unknown, aiTools: ReadonlySet<string>): number {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  let calls = 0;
  for (const m of messages) {
    if (typeof m !== 'object' || m === null) continue;
    const { method, params } = m as { method?: unknown; params?: { name?: unknown } };
    if (method === 'tools/call' && typeof params?.name === 'string' && aiTools.has(params.name)) calls++;
  }
  return calls;
}

/** The JSON-RPC messages of a body (one message or a batch) with the given method. */
function messagesOf(body: unknown, method: string): { params?: Record<string, unknown> }[] {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  return messages.filter(
    (m): m is { method: string; params?: Record<string, unknown> } => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === method,
  );
}

/** A tools/call that asks for progress: its answer is a stream (SSE), so notifications can come before the result. */
function wantsProgress(body: unknown): boolean {
  return messagesOf(body, 'tools/call').some((m) => {
    const meta = m.params?._meta as { progressToken?: unknown } | undefined;
    return typeof meta?.progressToken === 'string' || typeof meta?.progressToken === 'number';
  });
}

function jsonRpcError(res: Response, status: number, code: number, message: string) {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/**
 * MCP over Streamable HTTP, stateless: every POST gets a fresh server and
 * transport that are closed when the response ends, so nothing outlives the
 * request. Mounted after the bearer gate and the bounded JSON body parser.
 */
export function mcpRouter(deps: McpDependencies, options: McpRouteOptions): Router {
  const router = express.Router({ caseSensitive: true, strict: false });
  if (options.localhostOnly) router.use(localhostHostValidation());

  router.post('/', async (req: Request, res: Response) => {
    // express.json parsed (and bounded) any application/json body; anything it
    // left alone would otherwise be read unbounded by the transport.
    if (req.body === undefined) return jsonRpcError(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    const calls = aiToolCalls(req.body, options.budget.aiTools);
    if (calls > 0 && !(await options.budget.chargeAiCalls(req, res, calls))) return;
    const requestId = requestIdOf(res);
    const gitToken = req.get('X-Svc-Git-Token') ?? undefined;
    const caller = callerOf(res);
    // a cancel names a call that another POST (another stateless server) is running
    for (const m of messagesOf(req.body, 'notifications/cancelled')) deps.calls.cancel(callerKey(caller), m.params?.requestId);
    const server = createMcpServer(deps, requestId, caller, gitToken);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !wantsProgress(req.body) });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (err) {
      deps.logger.error('mcp request failed', { requestId, err: err instanceof Error ? err.stack : String(err) });
      if (!res.headersSent) jsonRpcError(res, 500, -32603, 'Internal server error');
    }
  });

  // Stateless: no server-initiated stream to GET and no session to DELETE.
  router.all('/', (_req: Request, res: Response) => {
    res.setHeader('Allow', 'POST');
    jsonRpcError(res, 405, -32000, 'Method not allowed: this MCP endpoint is stateless; send JSON-RPC messages with POST');
  });
  return router;
}
