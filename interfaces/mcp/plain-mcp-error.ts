import { McpError } from '@modelcontextprotocol/sdk/types.js';

/**
 * An McpError whose wire `message` is the text alone. The SDK's McpError
 * prefixes its message with `MCP error <code>: `, the SDK sends that message
 * as is, and an SDK client prefixes it again on receipt: the agent read
 * `MCP error -32602: MCP error -32602: ...`. The code travels in `code`.
 */
export function plainMcpError(code: number, message: string, data?: unknown): McpError {
  const err = new McpError(code, message, data);
  err.message = message;
  return err;
}
