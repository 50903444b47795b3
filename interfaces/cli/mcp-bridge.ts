import type { Readable, Writable } from 'node:stream';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { isJSONRPCRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { CliTarget } from './cli-config.js';

/** Where the bridge reads and writes; stdout carries MCP messages only, every log line goes to `log`. */
export interface BridgeIo {
  stdin: Readable;
  stdout: Writable;
  log: (line: string) => void;
}

/** JSON-RPC's "server error" range: the request could not be forwarded. */
const FORWARD_FAILED = -32000;

/** What to tell the agent when svc could not be asked: the status and svc's own message, or why it was not reached. */
export function forwardFailure(url: string, err: unknown): string {
  if (err instanceof StreamableHTTPError) {
    const said = /"message":"((?:[^"\\]|\\.)*)"/.exec(err.message)?.[1];
    const detail = said ? JSON.parse(`"${said}"`) : err.message;
    if (err.code === 401) return `svc at ${url} refused the request (HTTP 401: ${detail}); set SVC_AUTH_TOKEN or pass --token`;
    return `svc at ${url} refused the request (HTTP ${err.code ?? '?'}: ${detail})`;
  }
  const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `svc at ${url} could not be reached (${err instanceof Error ? err.message : String(err)}${cause}); start it (svc serve) or pass --url`;
}

/**
 * MCP over stdin/stdout for agents that launch local commands, forwarding
 * every message to a running svc's `/mcp` (Streamable HTTP, with the bearer
 * token) and every answer back: the official SDK's stdio server transport on
 * one side, its Streamable HTTP client transport on the other, so svc stays
 * the one definition of the tools and prompts. A request svc cannot be asked
 * (not reachable, token refused, over a rate limit) is answered with a
 * JSON-RPC error saying so. Resolves when stdin ends.
 */
export async function runMcpBridge(target: CliTarget, io: BridgeIo): Promise<void> {
  const endpoint = `${target.url}/mcp`;
  const headers: Record<string, string> = target.token ? { Authorization: `Bearer ${target.token}` } : {};
  const http = new StreamableHTTPClientTransport(new URL(endpoint), { requestInit: { headers } });
  const stdio = new StdioServerTransport(io.stdin, io.stdout);
  const toAgent = (m: JSONRPCMessage) => stdio.send(m).catch((e: unknown) => io.log(`svc mcp: could not write to stdout: ${String(e)}`));

  stdio.onmessage = (message) => {
    http.send(message).catch((err: unknown) => {
      const why = forwardFailure(endpoint, err);
      io.log(`svc mcp: ${why}`);
      if (isJSONRPCRequest(message)) void toAgent({ jsonrpc: '2.0', id: message.id, error: { code: FORWARD_FAILED, message: why } });
    });
  };
  stdio.onerror = (err) => io.log(`svc mcp: unreadable message on stdin: ${err.message}`);
  http.onmessage = (message) => void toAgent(message);
  http.onerror = (err) => io.log(`svc mcp: ${forwardFailure(endpoint, err)}`);

  await http.start();
  await stdio.start();
  io.log(`svc mcp: forwarding MCP on stdin/stdout to ${endpoint}`);
  await new Promise<void>((resolve) => {
    io.stdin.once('end', resolve);
    io.stdin.once('close', resolve);
  });
  await stdio.close();
  await http.close();
}
