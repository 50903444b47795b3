import type { Readable, Writable } from 'node:stream';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { isJSONRPCErrorResponse, isJSONRPCRequest, isJSONRPCResponse, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { CliTarget } from './cli-config.js';

/** Where the bridge reads and writes; stdout carries MCP messages only, every log line goes to `log`. */
export interface BridgeIo {
  stdin: Readable;
  stdout: Writable;
  log: (line: string) => void;
}

/** How long, after end of input, the bridge waits for the answers to requests it already forwarded (a remediate can take minutes). */
const DRAIN_MS = 10 * 60_000;

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
 * JSON-RPC error saying so. Resolves when stdin ends and every request
 * read before it was answered (or `drainMs` passed: those are answered with
 * an error saying so).
 */
export async function runMcpBridge(target: CliTarget, io: BridgeIo, drainMs = DRAIN_MS): Promise<void> {
  const endpoint = `${target.url}/mcp`;
  const headers: Record<string, string> = target.token ? { Authorization: `Bearer ${target.token}` } : {};
  const http = new StreamableHTTPClientTransport(new URL(endpoint), { requestInit: { headers } });
  const stdio = new StdioServerTransport(io.stdin, io.stdout);
  /** Requests forwarded and not yet answered: on end of input the bridge answers them before it exits. */
  const pending = new Map<string | number, JSONRPCMessage>();
  let drained: (() => void) | undefined;
  const settle = (id: string | number) => {
    pending.delete(id);
    if (pending.size === 0) drained?.();
  };
  const toAgent = (m: JSONRPCMessage) => {
    if ((isJSONRPCResponse(m) || isJSONRPCErrorResponse(m)) && m.id !== undefined) settle(m.id);
    return stdio.send(m).catch((e: unknown) => io.log(`svc mcp: could not write to stdout: ${String(e)}`));
  };
  // one line per failure: a refused send is reported both by send's rejection and by the transport's onerror
  let lastLogged = '';
  const logOnce = (line: string) => {
    if (line === lastLogged) return;
    lastLogged = line;
    io.log(line);
  };

  stdio.onmessage = (message) => {
    if (isJSONRPCRequest(message)) pending.set(message.id, message);
    http.send(message).catch((err: unknown) => {
      const why = forwardFailure(endpoint, err);
      logOnce(`svc mcp: ${why}`);
      if (isJSONRPCRequest(message)) void toAgent({ jsonrpc: '2.0', id: message.id, error: { code: FORWARD_FAILED, message: why } });
    });
  };
  stdio.onerror = (err) => io.log(`svc mcp: unreadable message on stdin: ${err.message}`);
  http.onmessage = (message) => void toAgent(message);
  http.onerror = (err) => logOnce(`svc mcp: ${forwardFailure(endpoint, err)}`);

  await http.start();
  await stdio.start();
  io.log(`svc mcp: forwarding MCP on stdin/stdout to ${endpoint}`);
  await new Promise<void>((resolve) => {
    io.stdin.once('end', resolve);
    io.stdin.once('close', resolve);
  });
  // end of input is not the end of the answers: wait for every forwarded request (bounded), then say why for any left
  if (pending.size > 0) {
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      drained = resolve;
      timer = setTimeout(resolve, drainMs);
    });
    clearTimeout(timer);
    for (const id of [...pending.keys()]) {
      const why = `svc mcp: input ended and svc at ${endpoint} did not answer within ${Math.round(drainMs / 1000)} s`;
      logOnce(why);
      await toAgent({ jsonrpc: '2.0', id, error: { code: FORWARD_FAILED, message: why } });
    }
  }
  await stdio.close();
  await http.close();
}
