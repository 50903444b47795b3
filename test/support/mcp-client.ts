import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** The official MCP SDK client connected to svc's `/mcp` at `url` over Streamable HTTP, with the bearer `token` when given. */
export async function mcpClient(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'svc-test', version: '1.0.0' });
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
  return client;
}
