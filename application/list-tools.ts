import type { ToolDefinition } from '../domain/tools/tool-definition.js';
import type { ToolRegistry } from '../domain/tools/tool-registry.js';

export interface ListToolsInput {
  /** Exact category name. */
  category?: string;
  /** Tags; a tool matches when it carries any of them. */
  tags?: string[];
  /** Case-insensitive substring of the name or description. */
  search?: string;
}

/** The tool catalog, filtered; filters combine (all must match). */
export class ListTools {
  constructor(private readonly registry: ToolRegistry) {}

  async execute(input: ListToolsInput): Promise<ToolDefinition[]> {
    const search = input.search?.toLowerCase();
    const tags = input.tags?.filter((t) => t.length > 0);
    return this.registry
      .list()
      .filter(
        (t) =>
          (input.category === undefined || t.category === input.category) &&
          (!tags?.length || t.tags.some((tag) => tags.includes(tag))) &&
          (!search || t.name.toLowerCase().includes(search) || t.description.toLowerCase().includes(search)),
      );
  }
}
