import { Ajv, type ValidateFunction } from 'ajv';
import { default as addFormats } from 'ajv-formats';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Progress, Tool } from '@modelcontextprotocol/sdk/types.js';

type Json = Record<string, any>;

/**
 * What an agent holds svc's answers to: the official MCP SDK client (which
 * checks structuredContent against each tool's outputSchema) and the
 * OpenAPI document for REST, each answer also checked here with ajv, so an
 * error result (which the SDK does not check) is held to its schema too.
 */
export class ContractChecks {
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  /** Every answer checked, as `transport tool status`: what the test says it covered. */
  readonly checked: string[] = [];

  constructor(private readonly openapi: Json) {
    addFormats.default(this.ajv);
    this.ajv.addSchema(openapi, 'openapi');
  }

  /** A REST answer against the OpenAPI document's schema for its path, method and status. */
  rest(path: string, method: string, status: number, body: unknown, label: string): void {
    const pointer = `openapi#/paths/${escape(path)}/${method}/responses/${status}/content/application~1json/schema`;
    const responses = this.openapi.paths?.[path]?.[method]?.responses ?? {};
    if (!responses[String(status)]) throw new Error(`${label}: the OpenAPI document declares no ${status} for ${method.toUpperCase()} ${path}`);
    const ref = responses[String(status)].$ref as string | undefined;
    const validate = this.validator(ref ? `openapi${ref}/content/application~1json/schema` : pointer);
    this.assert(validate, body, `REST ${label} ${status}`);
  }

  /** An MCP result against the tool's outputSchema (results and isError results alike). */
  mcp(tool: Tool, result: CallToolResult, label: string): void {
    if (!tool.outputSchema) throw new Error(`${tool.name} declares no outputSchema`);
    if (result.structuredContent === undefined) throw new Error(`MCP ${label}: no structuredContent`);
    const key = `mcp:${tool.name}`;
    if (!this.compiled.has(key)) this.compiled.set(key, this.ajv.compile(tool.outputSchema));
    this.assert(this.compiled.get(key)!, result.structuredContent, `MCP ${label}${result.isError ? ' (error)' : ''}`);
  }

  private validator(ref: string): ValidateFunction {
    if (!this.compiled.has(ref)) this.compiled.set(ref, this.ajv.compile({ $ref: ref }));
    return this.compiled.get(ref)!;
  }

  private assert(validate: ValidateFunction, value: unknown, label: string): void {
    if (!validate(value)) throw new Error(`${label} does not match its schema: ${this.ajv.errorsText(validate.errors, { separator: '; ' })}`);
    this.checked.push(label);
  }
}

const escape = (path: string) => path.replace(/~/g, '~0').replace(/\//g, '~1');

/** The official client on its defaults (60 s request timeout, no reset on progress), its tool list read (so it checks outputs). */
export async function sdkClient(transport: Transport): Promise<{ client: Client; tools: Map<string, Tool> }> {
  const client = new Client({ name: 'agent-contract', version: '1.0.0' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  return { client, tools: new Map(tools.map((t) => [t.name, t])) };
}

export function httpTransport(url: string, headers: Record<string, string>): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } });
}

/** One tools/call as an agent makes it: checked by the SDK (it throws on a schema mismatch) and here; with `progress`, a progress token. */
export async function callChecked(
  checks: ContractChecks,
  mcp: { client: Client; tools: Map<string, Tool> },
  name: string,
  args: Json,
  label: string,
  progress?: Progress[],
): Promise<{ result: CallToolResult; ms: number; data: Json }> {
  const t0 = Date.now();
  const result = (await mcp.client.callTool(
    { name, arguments: args },
    undefined,
    progress ? { onprogress: (p) => progress.push(p) } : undefined,
  )) as CallToolResult;
  const ms = Date.now() - t0;
  checks.mcp(mcp.tools.get(name)!, result, label);
  return { result, ms, data: result.structuredContent as Json };
}

/** svc's environment for the contract tests: the model and cluster stand-ins, on svc's verify and rollout defaults (the test helpers' short window taken away). */
export function onDefaults(
  kube: { writeKubeconfig(): string },
  chat: { apiKey: string; baseUrl: string },
  env: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  return {
    OPENAI_API_KEY: chat.apiKey,
    OPENAI_BASE_URL: chat.baseUrl,
    SVC_LLM_MODEL: 'gpt-test',
    KUBECONFIG: kube.writeKubeconfig(),
    SVC_VERIFY_WINDOW_MS: undefined,
    SVC_ROLLOUT_POLL_MS: undefined,
    ...env,
  };
}
