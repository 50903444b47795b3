import type { ToolCategory, ToolDefinition } from '../../domain/tools/tool-definition.js';
import { inputJsonSchema } from '../shared/tool-json-schema.js';

export interface ToolCatalogEntry {
  name: string;
  description: string;
  category: ToolCategory;
  tags: string[];
  /** JSON Schema (OpenAPI 3.0 dialect) of the tool's request body. */
  inputSchema: { [key: string]: unknown };
}

export function toCatalogEntry(def: ToolDefinition): ToolCatalogEntry {
  return { name: def.name, description: def.description, category: def.category, tags: def.tags, inputSchema: inputJsonSchema(def) };
}
