import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { Caller } from '../../domain/auth/caller.js';
import type { ExecuteTool } from '../../application/execute-tool.js';
import type { ListTools } from '../../application/list-tools.js';
import type { Logger } from '../../domain/ports/logger.js';
import { registerMcpPrompts, type McpPromptUseCases } from './mcp-prompts.js';
import { callMcpTool, listMcpTools } from './mcp-tools.js';
import { mcpRunScope, type McpCallRegistry } from './mcp-runs.js';
import { callerKey } from '../../domain/runs/run.js';

/** What the MCP interface needs: the same use cases REST uses, nothing of its own. */
export interface McpDependencies {
  serviceVersion: string;
  listTools: ListTools;
  executeTool: ExecuteTool;
  prompts: McpPromptUseCases;
  logger: Logger;
  /**
   * Shared across the per-request servers. The SDK builds an Ajv instance per
   * Server when none is given (used only for elicitation, which svc never
   * sends); sharing one keeps a stateless request cheap.
   */
  schemaValidator: jsonSchemaValidator;
  /** Calls in flight, for `notifications/cancelled` arriving on another request. */
  calls: McpCallRegistry;
  /** SVC_RUNS_HEARTBEAT_MS: a progress notification this often while a call with a progressToken runs. */
  heartbeatMs: number;
}

/**
 * One MCP server for one HTTP request (stateless Streamable HTTP): it holds
 * nothing beyond the request, so it is garbage as soon as the response ends.
 */
export function createMcpServer(deps: McpDependencies, requestId: string, caller: Caller, gitToken?: string): Server {
  const capabilities: ServerCapabilities = { tools: { listChanged: false }, prompts: { listChanged: false } };
  const server = new Server(
    { name: 'svc', version: deps.serviceVersion },
    {
      capabilities,
      jsonSchemaValidator: deps.schemaValidator,
      instructions:
        'svc: AI-assisted Kubernetes tools (recommend, deploy, operate, remediate, manage organizational data, version) and a shared prompt library. The same tools are served over REST at /api/v1.',
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await listMcpTools(deps.listTools) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const registered = deps.calls.register(callerKey(caller), extra.requestId);
    const { run, finish } = mcpRunScope(extra, registered.signal, request.params._meta?.progressToken, deps.heartbeatMs);
    try {
      const result = await callMcpTool(deps.executeTool, request.params.name, request.params.arguments, requestId, caller, deps.logger, gitToken, run);
      finish(run.signal.aborted ? 'cancelled' : result.isError ? 'failed' : 'succeeded');
      return result;
    } catch (e) {
      finish('failed');
      throw e;
    } finally {
      registered.release();
    }
  });
  registerMcpPrompts(server, deps.prompts, requestId, (err) =>
    deps.logger.error('mcp prompts request failed', { requestId, err: err instanceof Error ? err.stack : String(err) }),
  );
  return server;
}
