/** Paths that are their own template. */
const FIXED = new Set([
  '/healthz',
  '/readyz',
  '/metrics',
  '/mcp',
  '/api/v1/openapi',
  '/api/v1/tools',
  '/api/v1/prompts',
  '/api/v1/prompts/refresh',
  '/api/v1/prompts/sources',
  '/api/v1/sessions',
  '/api/v1/runs',
  '/api/v1/changes',
  '/api/v1/clusters',
  '/api/v1/changes/integrity',
]);
/** The collections whose members are addressed by one path segment, with the name of that segment. */
const MEMBERS: Record<string, string> = {
  tools: '{toolName}',
  prompts: '{promptName}',
  sessions: '{sessionId}',
  runs: '{runId}',
  changes: '{id}',
};
/** A member's sub-resources, by collection. */
const SUB: Record<string, string> = { runs: 'events', changes: 'revert' };
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
export const UNMATCHED = 'unmatched';

/**
 * The route template a path belongs to (`/api/v1/runs/{runId}/events`), for
 * metric labels: never the raw path, whose values are unbounded (every run id,
 * every probe of a scanner). A path no route serves is `unmatched`; the /docs
 * page and its assets are `/docs`. A trailing slash is ignored, as express does.
 */
export function routeTemplate(path: string): string {
  if (FIXED.has(path)) return path;
  const known = recent.get(path);
  if (known !== undefined) return known;
  const template = templateOf(path);
  // the paths seen last, bounded in number and length: a scanner's stream of fresh paths clears it, it never grows
  if (path.length > RECENT_PATH_LENGTH) return template;
  if (recent.size >= RECENT_PATHS) recent.clear();
  recent.set(path, template);
  return template;
}

/** How many raw paths routeTemplate remembers (each one's template, computed once). */
const RECENT_PATHS = 512;
const RECENT_PATH_LENGTH = 256;
const recent = new Map<string, string>();

function templateOf(path: string): string {
  const p = path.length > 1 && path.endsWith('/') ? path.replace(/\/+$/, '') : path;
  if (FIXED.has(p)) return p;
  if (p === '/docs' || p.startsWith('/docs/')) return '/docs';
  if (!p.startsWith('/api/v1/')) return UNMATCHED;
  const parts = p.split('/'); // ['', 'api', 'v1', collection, member, sub?]
  const member = MEMBERS[parts[3]];
  if (!member || parts.length < 5 || parts.length > 6 || parts[4] === '') return UNMATCHED;
  if (parts.length === 5) return `/api/v1/${parts[3]}/${member}`;
  return SUB[parts[3]] === parts[5] ? `/api/v1/${parts[3]}/${member}/${parts[5]}` : UNMATCHED;
}

/** The method as a label: one of the HTTP methods svc knows, else `other`. */
export function methodLabel(method: string): string {
  return METHODS.has(method) ? method : 'other';
}
