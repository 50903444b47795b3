import type { Caller } from '../../domain/auth/caller.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { plainMcpError } from './plain-mcp-error.js';
import type { ExecuteTool } from '../../application/execute-tool.js';
import type { RunScope } from '../../application/runs/run-scope.js';
import type { ListTools } from '../../application/list-tools.js';
import { DomainError, ERROR_CODES } from '../../domain/errors.js';
import type { Logger } from '../../domain/ports/logger.js';
import type { ToolDefinition } from '../../domain/tools/tool-definition.js';
import { inputJsonSchema, outputJsonSchema } from '../shared/tool-json-schema.js';

/** A tool definition as MCP `tools/list` shows it: same name, description and input schema as the REST catalog. */
export function toMcpTool(def: ToolDefinition): Tool {
  const output = outputJsonSchema(def);
  return {
    name: def.name,
    description: def.description,
    inputSchema: inputJsonSchema(def) as Tool['inputSchema'],
    ...(output ? { outputSchema: structuredOutputSchema(def.name, output) } : {}),
    _meta: { 'svc/category': def.category, 'svc/tags': def.tags },
  };
}

/**
 * `structuredContent` is `{result, tool, executionTime}`, as `data` of the REST
 * envelope, or, in an `isError` result, `{error}` as the envelope's error: MCP
 * clients check the structured content of error results against this schema too.
 */
function structuredOutputSchema(name: string, result: Record<string, unknown>): Tool['outputSchema'] {
  return {
    type: 'object',
    properties: {
      result,
      tool: { type: 'string', enum: [name] },
      executionTime: { type: 'number', description: 'milliseconds' },
      error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' }, details: {} }, required: ['code', 'message'] },
    },
    anyOf: [{ required: ['result', 'tool', 'executionTime'] }, { required: ['error'] }],
  } as Tool['outputSchema'];
}

export async function listMcpTools(listTools: ListTools): Promise<Tool[]> {
  return (await listTools.execute({})).map(toMcpTool);
}

/**
 * `tools/call` on the same use case as `POST /api/v1/tools/{name}`.
 *
 * An unknown tool is a protocol error (the client asked for something that
 * does not exist). Bad arguments and tool failures are results with
 * `isError: true`, as the MCP spec asks, so a model sees the message naming
 * each bad field and can correct itself; `structuredContent.error` carries the
 * same `{code, message, details}` the REST envelope would.
 */
export async function callMcpTool(
  executeTool: ExecuteTool,
  name: string,
  args: Record<string, unknown> | undefined,
  requestId: string,
  caller: Caller,
  logger: Logger,
  /** The HTTP request's `X-Svc-Git-Token`, for deployManifests with `gitops`. */
  gitToken?: string,
  /** The call's cancel signal and progress sink (a progressToken's notifications). */
  run?: RunScope,
): Promise<CallToolResult> {
  try {
    const out = await executeTool.execute({ toolName: name, params: args ?? {}, requestId, caller, gitToken, ...(run ? { run } : {}) });
    const data = { result: out.result, tool: out.tool, executionTime: out.executionTime };
    return { content: [{ type: 'text', text: JSON.stringify(data, null, 2) }], structuredContent: data };
  } catch (err) {
    if (err instanceof DomainError && err.code === ERROR_CODES.TOOL_NOT_FOUND) {
      throw plainMcpError(ErrorCode.InvalidParams, err.message);
    }
    if (err instanceof DomainError) {
      const error = err.details === undefined ? { code: err.code, message: err.message } : { code: err.code, message: err.message, details: err.details };
      return { content: [{ type: 'text', text: `${err.code}: ${err.message}` }], structuredContent: { error }, isError: true };
    }
    // ExecuteTool already turns tool failures into ExecutionError; anything else is a bug: log it whole, show no internals.
    logger.error('mcp tools/call failed', { tool: name, requestId, err: err instanceof Error ? err.stack : String(err) });
    throw plainMcpError(ErrorCode.InternalError, `Internal error; see the server log for request ${requestId}`);
  }
}
