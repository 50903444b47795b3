/**
 * Child process of bench/tracing: CPU microseconds per `version` tool run
 * through the ExecuteTool use case, no HTTP. The environment picks the mode
 * (OTEL_* as the bench sets them). Prints `CPU_US <n>`. Measured per process
 * CPU time over thousands of runs, so it holds steady where req/s does not.
 */
import 'reflect-metadata';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { STATIC_TOKEN_CALLER } from '../../domain/auth/caller.js';
import type { ExecuteTool } from '../../application/execute-tool.js';
import type { Tracer } from '../../domain/ports/tracer.js';
import { buildContainer } from '../../infrastructure/composition-root.js';
import { loadConfig } from '../../infrastructure/config/config.js';
import { TOKENS } from '../../infrastructure/tokens.js';

const RUNS = 20000;

async function main() {
  // a local sink, so an OTLP export costs what it costs against a real collector's socket
  const sink = http.createServer((req, res) => req.resume().on('end', () => res.end()));
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const env: Record<string, string | undefined> = { ...process.env, LOG_LEVEL: 'silent', HOST: '127.0.0.1' };
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT) env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  const container = buildContainer(loadConfig(env));
  const executeTool = container.resolve<ExecuteTool>(TOKENS.ExecuteTool);
  const run = () => executeTool.execute({ toolName: 'version', params: {}, requestId: 'bench', caller: STATIC_TOKEN_CALLER });
  for (let i = 0; i < RUNS / 10; i++) await run();
  const before = process.cpuUsage();
  for (let i = 0; i < RUNS; i++) await run();
  await container.resolve<Tracer>(TOKENS.Tracer).shutdown(); // the export of what was recorded is part of the cost
  const used = process.cpuUsage(before);
  console.log(`CPU_US ${((used.user + used.system) / RUNS).toFixed(2)}`);
  sink.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
