import { z } from 'zod';
import type { ToolDefinition } from '../../domain/tools/tool-definition.js';

const schemaCache = new WeakMap<ToolDefinition, Record<string, unknown>>();

/**
 * The JSON Schema (OpenAPI 3.0 dialect) of a tool's input, converted once per
 * definition. The one conversion the REST catalog, the OpenAPI document, MCP
 * `tools/list` and the CLI's flag parsing all read, so they cannot drift.
 */
export function inputJsonSchema(def: ToolDefinition): Record<string, unknown> {
  let schema = schemaCache.get(def);
  if (!schema) {
    schema = z.toJSONSchema(def.inputSchema, { target: 'openapi-3.0', io: 'input' }) as Record<string, unknown>;
    delete schema.$schema;
    schemaCache.set(def, schema);
  }
  return schema;
}

const outputCache = new WeakMap<ToolDefinition, Record<string, unknown>>();

/** The JSON Schema (OpenAPI 3.0 dialect) of a tool's result, or undefined when the tool declares none. */
export function outputJsonSchema(def: ToolDefinition): Record<string, unknown> | undefined {
  if (!def.outputSchema) return undefined;
  let schema = outputCache.get(def);
  if (!schema) {
    schema = z.toJSONSchema(def.outputSchema, { target: 'openapi-3.0', io: 'output', unrepresentable: 'any' }) as Record<string, unknown>;
    delete schema.$schema;
    outputCache.set(def, schema);
  }
  return schema;
}
