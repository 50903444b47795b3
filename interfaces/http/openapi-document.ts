import { GIT_TOKEN_HEADER, type ToolDefinition } from '../../domain/tools/tool-definition.js';
import type { ToolRegistry } from '../../domain/tools/tool-registry.js';
import { SERVICE_VERSION } from '../../infrastructure/service-version.js';
import generated from './generated/swagger.json';
import { SOURCES_PATH_ITEM, SOURCES_SCHEMAS } from './sources-openapi.js';
import { inputJsonSchema, outputJsonSchema } from '../shared/tool-json-schema.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The documented routes that answer without a token. */
const PUBLIC_PATHS = ['/healthz', '/api/v1/openapi'];

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const jsonContent = (schema: Json) => ({ 'application/json': { schema } });

const ERROR_RESPONSES: Json = {
  '400': { description: 'VALIDATION_ERROR: invalid or missing parameters, or a body that is not a JSON object', content: jsonContent(ref('ErrorEnvelope')) },
  '401': { description: 'UNAUTHORIZED: missing or invalid bearer token', content: jsonContent(ref('ErrorEnvelope')) },
  '403': {
    description: "FORBIDDEN: the caller lacks the role, the session is someone else's, or a second approver is needed",
    content: jsonContent(ref('ErrorEnvelope')),
  },
  '404': { description: 'TOOL_NOT_FOUND: no tool of that name; NOT_FOUND: no such session or entry', content: jsonContent(ref('ErrorEnvelope')) },
  '405': { description: 'METHOD_NOT_ALLOWED: tool endpoints accept only POST', content: jsonContent(ref('ErrorEnvelope')) },
  '409': {
    description: 'CONFLICT: the plan changed since the planDigest sent, or the object changed since it was read',
    content: jsonContent(ref('ErrorEnvelope')),
  },
  '413': { description: 'PAYLOAD_TOO_LARGE: the body is over the limit', content: jsonContent(ref('ErrorEnvelope')) },
  '429': { description: 'RATE_LIMITED: too many AI tool calls or runs for this caller', content: jsonContent(ref('ErrorEnvelope')) },
  '500': { description: 'EXECUTION_ERROR: the tool failed; INTERNAL_ERROR: server error', content: jsonContent(ref('ErrorEnvelope')) },
  '502': { description: 'DEPENDENCY_ERROR: the model, the cluster or another dependency failed', content: jsonContent(ref('ErrorEnvelope')) },
};

const SHARED_SCHEMAS: Json = {
  Meta: {
    type: 'object',
    properties: {
      timestamp: { type: 'string', format: 'date-time' },
      requestId: { type: 'string', description: 'Unique per request; also the X-Request-Id header' },
      version: { type: 'string', example: 'v1' },
    },
    required: ['timestamp', 'requestId', 'version'],
  },
  ErrorEnvelope: {
    type: 'object',
    properties: {
      success: { type: 'boolean', enum: [false] },
      error: {
        type: 'object',
        properties: { code: { type: 'string' }, message: { type: 'string' }, details: {} },
        required: ['code', 'message'],
      },
      meta: ref('Meta'),
    },
    required: ['success', 'error', 'meta'],
  },
};

function toolSchemaName(def: ToolDefinition): string {
  return `Tool_${def.name.replace(/[^A-Za-z0-9_.-]/g, '_')}_Input`;
}

/** SPEC's per-request git credential, as a tool that pushes accepts it: for the push only, scoped to the repository's host. */
function gitTokenParameter(pushes: string): Json {
  return {
    in: 'header',
    name: GIT_TOKEN_HEADER,
    required: false,
    schema: { type: 'string' },
    description:
      `Per-request git credential for pushing ${pushes}. It is used for that request only, to push to that repository (and open its pull request), ` +
      'and is scoped to the host of the repository; it is not forwarded across a cross-host redirect. It never appears in logs, error messages, ' +
      'spans, answers or the change ledger. Without it the server credential (SVC_GIT_TOKEN) is used only for https:// repositories on the ' +
      'allowed repository hosts (gitops.allowedRepoHosts); a push with neither is refused (400). It has no effect on a call that does not push.',
  };
}

/**
 * A tool's request body. A tool with no required parameter shows `{}` as its
 * example: /docs' "Try it out" then sends a call that runs, not one with a
 * placeholder for every optional parameter (a `cluster` of "string").
 */
function requestContent(def: ToolDefinition): Json {
  const required = (inputJsonSchema(def) as { required?: unknown[] }).required ?? [];
  const content = jsonContent(ref(toolSchemaName(def)));
  return required.length ? content : { 'application/json': { ...content['application/json'], example: {} } };
}

function toolPath(def: ToolDefinition): Json {
  return {
    post: {
      operationId: `executeTool_${def.name.replace(/[^A-Za-z0-9_]/g, '_')}`,
      summary: `Run the ${def.name} tool`,
      description: `${def.description}\n\nCategory: ${def.category}. Tags: ${def.tags.join(', ')}.`,
      tags: ['Tools', def.category],
      security: [{ bearer: [] }],
      ...(def.gitPush ? { parameters: [gitTokenParameter(def.gitPush)] } : {}),
      requestBody: { required: true, content: requestContent(def) },
      responses: {
        '200': {
          description: 'The tool ran; data.result is its result',
          content: jsonContent({
            type: 'object',
            properties: {
              success: { type: 'boolean', enum: [true] },
              data: {
                type: 'object',
                properties: {
                  result: outputJsonSchema(def) ?? { description: `Result of ${def.name}` },
                  tool: { type: 'string', enum: [def.name] },
                  executionTime: { type: 'number', description: 'milliseconds' },
                },
                required: ['result', 'tool', 'executionTime'],
              },
              meta: ref('Meta'),
            },
            required: ['success', 'data', 'meta'],
          }),
        },
        ...ERROR_RESPONSES,
      },
    },
  };
}

/**
 * tsoa's generated spec (every controller route) plus one path per tool in the
 * registry, so a new tool definition appears here with no other change.
 */
const documents = new WeakMap<ToolRegistry, Json>();

/** The document of a registry, built once: a registry never changes after start-up. */
export function openApiDocumentOf(registry: ToolRegistry): Json {
  let doc = documents.get(registry);
  if (!doc) documents.set(registry, (doc = buildOpenApiDocument(registry)));
  return doc;
}

function buildOpenApiDocument(registry: ToolRegistry): Json {
  const doc: Json = structuredClone(generated as Json);
  doc.info = {
    title: 'svc API',
    description:
      'REST gateway to AI-assisted Kubernetes tools and a shared prompt library. Every /api/v1 response except this document uses the envelope {success, data | error, meta}.',
    version: SERVICE_VERSION,
    contact: { name: 'svc maintainers', url: 'https://example.invalid/svc' },
  };
  doc.components = doc.components ?? {};
  doc.components.schemas = { ...(doc.components.schemas ?? {}), ...SHARED_SCHEMAS, ...SOURCES_SCHEMAS };
  doc.paths = { ...(doc.paths ?? {}), ...SOURCES_PATH_ITEM };
  // The request gate asks every route for the bearer token but the public ones (SPEC, Authentication 1 and 2). Said on
  // each operation, replacing the `security: []` tsoa writes on every controller route, so /docs' "Try it out" and a
  // generated client send the token wherever the server asks for it (test/http/openapi-security.test.ts checks each).
  doc.components.securitySchemes = { bearer: { type: 'http', scheme: 'bearer' } };
  doc.security = [{ bearer: [] }];
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const op of Object.values(item as Json)) op.security = PUBLIC_PATHS.includes(path) ? [] : [{ bearer: [] }];
  }
  for (const def of registry.list()) {
    doc.components.schemas[toolSchemaName(def)] = inputJsonSchema(def);
    doc.paths[`/api/v1/tools/${def.name}`] = toolPath(def);
  }
  return doc;
}
