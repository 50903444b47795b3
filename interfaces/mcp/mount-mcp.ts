import type { Express, RequestHandler } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { isLoopbackHost } from '../../infrastructure/config/server-config.js';
import { SERVICE_VERSION } from '../../infrastructure/service-version.js';
import { TOKENS } from '../../infrastructure/tokens.js';
import type { McpAiBudget } from './mcp-route.js';
import { McpCallRegistry } from './mcp-runs.js';

export const MCP_PATH = '/mcp';

/**
 * Mounts MCP at /mcp on the app of one container, on that container's use
 * cases. The MCP SDK (and its JSON Schema validator) loads on the first
 * /mcp request, not at start-up: a server that is never asked over MCP
 * does not pay for it (about 0.13 s and 27 MB).
 */
export function mountMcp(app: Express, container: DependencyContainer, budget: McpAiBudget): void {
  let router: RequestHandler | undefined;
  const build = (): RequestHandler => {
    const { AjvJsonSchemaValidator } = require('@modelcontextprotocol/sdk/validation/ajv') as typeof import('@modelcontextprotocol/sdk/validation/ajv');
    const { mcpRouter } = require('./mcp-route.js') as typeof import('./mcp-route.js');
    const config = container.resolve(TOKENS.Config);
    const deps = {
      serviceVersion: SERVICE_VERSION,
      listTools: container.resolve(TOKENS.ListTools),
      executeTool: container.resolve(TOKENS.ExecuteTool),
      prompts: { listPrompts: container.resolve(TOKENS.ListPrompts), renderPrompt: container.resolve(TOKENS.RenderPrompt) },
      logger: container.resolve(TOKENS.Logger),
      schemaValidator: new AjvJsonSchemaValidator(),
      calls: new McpCallRegistry(),
      heartbeatMs: config.runs.heartbeatMs,
    };
    const localhostOnly = !config.server.authRequired && isLoopbackHost(config.server.host);
    return mcpRouter(deps, { localhostOnly, budget });
  };
  app.use(MCP_PATH, (req, res, next) => {
    router ??= build();
    router(req, res, next);
  });
}
