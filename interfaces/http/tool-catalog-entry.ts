import { z } from 'zod';
import type { ToolCategory, ToolDefinition } from '../../domain/tools/tool-definition.js';

export interface ToolCatalogEntry {
  name: string;
  description: string;
  category: ToolCategory;
  tags: string[];
  /** JSON Schema (OpenAPI 3.0 dialect) of the tool's request body. */
  inputSchema: { [key: string]: unknown };
}

const schemaCache = new WeakMap<ToolDefinition, Record<string, unknown>>();

/** The JSON Schema of a tool's input, converted once per definition. */
export function inputJsonSchema(def: ToolDefinition): Record<string, unknown> {
  let schema = schemaCache.get(def);
  if (!schema) {
    schema = z.toJSONSchema(def.inputSchema, { target: 'openapi-3.0', io: 'input' }) as Record<string, unknown>;
    delete schema.$schema;
    schemaCache.set(def, schema);
  }
  return schema;
}

export function toCatalogEntry(def: ToolDefinition): ToolCatalogEntry {
  return { name: def.name, description: def.description, category: def.category, tags: def.tags, inputSchema: inputJsonSchema(def) };
}
