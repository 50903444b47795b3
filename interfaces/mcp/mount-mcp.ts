import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Express } from 'express';
import type { DependencyContainer } from 'tsyringe';
import type { ExecuteTool } from '../../application/execute-tool.js';
import type { ListTools } from '../../application/list-tools.js';
import type { ListPrompts } from '../../application/prompts/list-prompts.js';
import type { RenderPrompt } from '../../application/prompts/render-prompt.js';
import type { Logger } from '../../domain/ports/logger.js';
import type { Config } from '../../infrastructure/config/config.js';
import { isLoopbackHost } from '../../infrastructure/config/server-config.js';
import { SERVICE_VERSION } from '../../infrastructure/service-version.js';
import { TOKENS } from '../../infrastructure/tokens.js';
import { MCP_PATH, mcpRouter } from './mcp-route.js';

/** Mounts MCP at /mcp on the app of one container, on that container's use cases. */
export function mountMcp(app: Express, container: DependencyContainer): void {
  const config = container.resolve<Config>(TOKENS.Config);
  const deps = {
    serviceVersion: SERVICE_VERSION,
    listTools: container.resolve<ListTools>(TOKENS.ListTools),
    executeTool: container.resolve<ExecuteTool>(TOKENS.ExecuteTool),
    prompts: {
      listPrompts: container.resolve<ListPrompts>(TOKENS.ListPrompts),
      renderPrompt: container.resolve<RenderPrompt>(TOKENS.RenderPrompt),
    },
    logger: container.resolve<Logger>(TOKENS.Logger),
    schemaValidator: new AjvJsonSchemaValidator(),
  };
  const localhostOnly = config.server.authToken === undefined && isLoopbackHost(config.server.host);
  app.use(MCP_PATH, mcpRouter(deps, { localhostOnly }));
}
