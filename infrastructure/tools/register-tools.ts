import { ExecuteTool, type ClusterChoice } from '../../application/execute-tool.js';
import { ListTools } from '../../application/list-tools.js';
import { handlerTable, type ToolHandler, type ToolHandlers, type TypedToolHandlers } from '../../application/tool-handler.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { Logger } from '../../domain/ports/logger.js';
import type { Metrics } from '../../domain/ports/metrics.js';
import type { Tracer } from '../../domain/ports/tracer.js';
import type { ToolDefinition } from '../../domain/tools/tool-definition.js';
import { ToolRegistry } from '../../domain/tools/tool-registry.js';

/** What the gateway's tool module is built from: the definitions and every feature's handlers. */
export interface ToolsDeps {
  definitions: readonly ToolDefinition[];
  /** Each tool's use case, by tool name (built by the feature modules). */
  handlers: TypedToolHandlers;
  /** Extra or replacement handlers by tool name (tests). */
  extraHandlers?: Record<string, ToolHandler>;
  tracer: Tracer;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  /** Check every tool result against its output schema (tests). */
  verifyOutputs: boolean;
  /** The fleet (SVC_CLUSTERS), when svc serves several clusters. */
  fleet?: ClusterChoice;
}

/** What the tool module gives the rest of the composition: the registry, the catalog and the one way a tool is executed. */
export interface ToolsExports {
  registry: ToolRegistry;
  handlers: ToolHandlers;
  listTools: ListTools;
  executeTool: ExecuteTool;
}

/** The tool registry, the handler table and the use cases over them. Takes every input as an argument and touches no container. */
export function registerTools(deps: ToolsDeps): ToolsExports {
  const registry = new ToolRegistry(deps.definitions);
  const handlers = handlerTable(deps.handlers, deps.extraHandlers);
  return {
    registry,
    handlers,
    listTools: new ListTools(registry),
    executeTool: new ExecuteTool(registry, handlers, deps.tracer, deps.clock, deps.logger, deps.verifyOutputs, deps.metrics, deps.fleet),
  };
}
