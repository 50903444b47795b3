import type { ListToolsInput } from '../../application/list-tools.js';

/** Query parameters of GET /api/v1/tools. */
export const CATALOG_QUERY_KEYS = ['category', 'tag', 'tags', 'search'] as const;

/** The catalog filters from its query parameters: `tag` and `tags` both take comma-separated tags (any match). */
export function catalogFilters(category?: string, tag?: string, tags?: string, search?: string): ListToolsInput {
  const wanted = [tag, tags]
    .filter((t): t is string => typeof t === 'string')
    .flatMap((t) => t.split(','))
    .map((t) => t.trim())
    .filter(Boolean);
  return { category, tags: wanted.length ? wanted : undefined, search };
}
