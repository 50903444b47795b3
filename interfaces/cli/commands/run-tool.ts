import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { ValidationError } from '../../../domain/errors.js';
import { TOOL_DEFINITIONS } from '../../../domain/tools/tool-definitions.js';
import { ToolRegistry } from '../../../domain/tools/tool-registry.js';
import { inputJsonSchema } from '../../shared/tool-json-schema.js';
import { RequestFailed, UsageError } from '../cli-errors.js';
import { ASYNC_TOOLS } from '../../../domain/runs/run.js';
import { watchRun } from '../run-watch.js';
import type { CommandContext } from '../command-context.js';
import { approvalCommandText, nextCommandText } from '../next-command.js';
import { printJson, printPretty, writeOut } from '../output.js';
import type { SvcClient } from '../svc-client.js';
import { describeParams, parseToolParams, type ToolInputSchema } from '../tool-params.js';

const registry = new ToolRegistry(TOOL_DEFINITIONS);

/** Either this CLI's own definition of the tool, or the schema the server publishes for a tool this build does not know. */
type ToolSchemaSource = { local: true; schema: ToolInputSchema } | { local: false; schema: ToolInputSchema & Record<string, unknown> };

async function schemaFor(client: SvcClient, tool: string): Promise<ToolSchemaSource> {
  const def = registry.list().find((d) => d.name === tool);
  if (def) return { local: true, schema: inputJsonSchema(def) as ToolInputSchema };
  const data = await client.get<{ tools: { name: string; inputSchema: Record<string, unknown> }[] }>('/api/v1/tools', { search: tool });
  const entry = data.tools.find((t) => t.name === tool);
  if (!entry) throw new UsageError(`Unknown tool ${tool}; \`svc tools\` lists the tools the server offers`);
  return { local: false, schema: entry.inputSchema as ToolInputSchema & Record<string, unknown> };
}

async function readJsonFile(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`Cannot read --json file ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`--json file ${file} is not valid JSON`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new UsageError(`--json file ${file} must hold a JSON object of the tool's parameters`);
  return value as Record<string, unknown>;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Validates before sending: the tool's own zod schema when this build defines it, else the server's published JSON Schema. */
async function validateLocally(tool: string, source: ToolSchemaSource, params: Record<string, unknown>): Promise<void> {
  if (source.local) {
    try {
      registry.validate(tool, params);
    } catch (err) {
      if (err instanceof ValidationError) throw new UsageError(err.message, err.details);
      throw err;
    }
    return;
  }
  // Loaded only for a tool this build does not define: Ajv costs start-up time every other command would pay.
  const { AjvJsonSchemaValidator } = await import('@modelcontextprotocol/sdk/validation/ajv');
  const check = new AjvJsonSchemaValidator().getValidator<Record<string, unknown>>(source.schema)(params);
  if (!check.valid) throw new UsageError(`Invalid parameters for tool ${tool}: ${check.errorMessage}`);
}

type ToolData = { result: unknown; tool: string; executionTime: number };

/**
 * A tool whose run can be long is started as a run and followed live (a
 * spinner and the latest event on a terminal; plain lines otherwise or with
 * `-o json`); Ctrl-C cancels it on the server. The answer is the same data.
 */
async function runAsync(client: SvcClient, tool: string, params: Record<string, unknown>, output: string): Promise<ToolData> {
  const start = await client.postAsync<ToolData, { runId: string }>(`/api/v1/tools/${encodeURIComponent(tool)}`, params);
  if (!start.started) return start.data;
  const live = process.stderr.isTTY === true && output !== 'json';
  const run = await watchRun(client, start.run.runId, { live, cancelOnInterrupt: true });
  if (run.status === 'succeeded') return run.result as ToolData;
  // the same message as the synchronous call (the run id is on the progress lines above it)
  throw new RequestFailed(run.error?.code ?? 'RUN_FAILED', run.error?.message ?? `Run ${run.runId} ${run.status}`);
}

/** `svc run <tool>`'s help: the tool's parameters, or the tools this CLI knows. */
export function paramsHelp(cmd: Command): string {
  const tool = cmd.args.find((a) => !a.startsWith('-'));
  const def = tool ? registry.list().find((d) => d.name === tool) : undefined;
  if (def) return `\nParameters of ${def.name} (${def.description}):\n${describeParams(inputJsonSchema(def) as ToolInputSchema)}\n`;
  return `\nTools known to this CLI: ${registry
    .list()
    .map((d) => d.name)
    .join(', ')}. \`svc run <tool> --help\` shows a tool's parameters.\n`;
}

/** `svc run <tool> [params...]`: validate locally, call the server (following a long run live), print the answer and the next step. */
export async function runTool(context: CommandContext, tool: string, rawParams: string[], opts: { json?: string }, cmd: Command): Promise<void> {
  const { client, output } = context(cmd);
  const base = opts.json ? await readJsonFile(opts.json) : {};
  const source = await schemaFor(client, tool);
  const params = parseToolParams(tool, source.schema, rawParams, base);
  await validateLocally(tool, source, params);
  const data = ASYNC_TOOLS.has(tool)
    ? await runAsync(client, tool, params, output)
    : await client.post<ToolData>(`/api/v1/tools/${encodeURIComponent(tool)}`, params);
  if (output === 'json') return printJson(data);
  printPretty(data.result);
  const next = nextCommandText(data.result) ?? approvalCommandText(tool, data.result);
  if (next) writeOut(next);
}
