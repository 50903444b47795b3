import type { Express, RequestHandler } from 'express';
import type { AppParts } from '../../infrastructure/composition-root.js';
import { isLoopbackHost } from '../../infrastructure/config/server-config.js';
import { SERVICE_VERSION } from '../../infrastructure/service-version.js';
import type { McpAiBudget } from './mcp-route.js';
import { McpCallRegistry } from './mcp-runs.js';

export const MCP_PATH = '/mcp';

/**
 * Mounts MCP at /mcp on the app of one composition, on its use cases (the
 * parts the root built). The MCP SDK (and its JSON Schema validator) loads on the first
 * /mcp request, not at start-up: a server that is never asked over MCP
 * does not pay for it (about 0.13 s and 27 MB).
 */
export function mountMcp(app: Express, parts: AppParts, budget: McpAiBudget): void {
  let router: RequestHandler | undefined;
  const build = (): RequestHandler => {
    const { AjvJsonSchemaValidator } = require('@modelcontextprotocol/sdk/validation/ajv') as typeof import('@modelcontextprotocol/sdk/validation/ajv');
    const { mcpRouter } = require('./mcp-route.js') as typeof import('./mcp-route.js');
    const { config } = parts;
    const deps = {
      serviceVersion: SERVICE_VERSION,
      listTools: parts.tools.list,
      executeTool: parts.tools.execute,
      prompts: { listPrompts: parts.prompts.list, renderPrompt: parts.prompts.render },
      logger: parts.logger,
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
