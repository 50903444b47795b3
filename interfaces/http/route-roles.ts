import type { Role } from '../../domain/auth/caller.js';
import { leastRoleForTool } from '../../domain/auth/tool-access.js';

const TOOL_PREFIX = '/api/v1/tools/';
const PROMPTS = '/api/v1/prompts';
/** Query parameters that point the prompt routes at another source: admins only. */
const SOURCE_OVERRIDES = ['repo', 'path', 'branch', 'source'];

/**
 * The least role a gated route needs, decided in the request gate before
 * anything runs (the fast answers included): viewers read the catalog, the
 * prompts of the configured source, readiness and the MCP endpoint; a tool
 * call needs at least the lowest role any of its calls needs (ExecuteTool
 * checks the exact one from the input); uploads, refresh and the per-request
 * `repo`/`path`/`branch`/`source` of the prompt routes need admin. Uploads
 * are admin-only, so `?source=` of any upload is of someone else's unless the
 * caller is an admin: admin covers both.
 */
export function roleForRoute(
  method: string | undefined,
  path: string,
  query: string | undefined,
  /** A tool call's least role; with a fleet whose clusters map roles of their own, leastRoleBeforeCluster. */
  leastRoleOf: (tool: string) => Role = leastRoleForTool,
): Role {
  // express matches routes case-insensitively and with or without a trailing slash
  const p = path.toLowerCase().replace(/\/+$/, '');
  if (p.startsWith(TOOL_PREFIX)) return method === 'POST' ? leastRoleOf(path.slice(TOOL_PREFIX.length).replace(/\/+$/, '')) : 'viewer';
  if (p === PROMPTS || p.startsWith(`${PROMPTS}/`)) {
    if (method === 'POST' && (p === `${PROMPTS}/refresh` || p === `${PROMPTS}/sources`)) return 'admin';
    if (query !== undefined && overridesSource(query)) return 'admin';
  }
  return 'viewer';
}

function overridesSource(query: string): boolean {
  const params = new URLSearchParams(query);
  return SOURCE_OVERRIDES.some((p) => params.has(p));
}
