// Run as a child process with --expose-gc (test/mcp/mcp-memory.test.ts): many
// stateless MCP sessions (initialize, tools/list, tools/call,
// prompts/list, prompts/get) against the real app. Reports two things:
// - how many of the per-request MCP servers and transports are still reachable
//   after a full GC (WeakRefs; must be none: the deterministic check);
// - heap growth between a warm baseline and the end, code space excluded
//   (it grows while the JIT warms up, not per session).
// Prints one JSON line.
import 'reflect-metadata';
import { getHeapSpaceStatistics } from 'node:v8';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { startAccessServer, TEST_TOKEN } from './access-server.js';

const gc = (globalThis as { gc?: () => void }).gc;

async function settledHeap(): Promise<number> {
  if (!gc) throw new Error('run with node --expose-gc');
  for (let i = 0; i < 6; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const code = getHeapSpaceStatistics().find((s) => s.space_name === 'code_space')?.space_used_size ?? 0;
  return process.memoryUsage().heapUsed - code;
}

// Test-only leak, to show both checks catch one: keep this many heap bytes per
// session and every server object (as a forgotten session map would).
const leakBytes = Number(process.env.PROBE_LEAK_BYTES ?? '0');
const leaked: unknown[] = [];

// Every server the app creates goes through connect(): watch it and its transport without keeping them alive.
const watched: WeakRef<object>[] = [];
const connect = Server.prototype.connect;
Server.prototype.connect = function (this: Server, transport: Transport) {
  watched.push(new WeakRef(this), new WeakRef(transport));
  if (leakBytes > 0) leaked.push(this);
  return connect.call(this, transport);
};

const rpc = (id: number | undefined, method: string, params?: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', ...(id === undefined ? {} : { id }), method, ...(params ? { params } : {}) });

const SESSION = [
  rpc(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } }),
  rpc(2, 'tools/list'),
  rpc(3, 'tools/call', { name: 'version', arguments: {} }),
  rpc(4, 'prompts/list'),
  rpc(5, 'prompts/get', { name: 'debug-crashloop', arguments: { pod: 'p', namespace: 'n' } }),
];

async function main() {
  const cycles = Number(process.argv[2] ?? '300');
  const warmup = Number(process.argv[3] ?? '200');
  const server = await startAccessServer();
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TEST_TOKEN}` };

  const session = async () => {
    for (const body of SESSION) {
      const res = await fetch(`${server.url}/mcp`, { method: 'POST', headers, body });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`MCP answered ${res.status}: ${text}`);
    }
    // An array of doubles lives on the V8 heap (8 bytes each), unlike a Buffer.
    if (leakBytes > 0) leaked.push(Array.from({ length: leakBytes / 8 }, (_, i) => i + 0.5));
  };

  for (let i = 0; i < warmup; i++) await session();
  const baseline = await settledHeap();
  for (let i = 0; i < cycles; i++) await session();
  const after = await settledHeap();
  const alive = watched.filter((ref) => ref.deref() !== undefined).length;
  await server.stop();
  process.stdout.write(`${JSON.stringify({ baseline, after, growth: after - baseline, cycles, created: watched.length, alive, leaked: leaked.length })}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
