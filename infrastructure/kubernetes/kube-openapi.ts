import type { ResourceSchema } from '../../domain/cluster/kube-types.js';
import { KubeStatusError } from './kube-errors.js';
import type { KubeTransport } from './kube-transport.js';

type Json = Record<string, unknown>;
interface OpenApiDoc {
  components?: { schemas?: Record<string, Json> };
}

/** Group-version documents are large (core/v1 is megabytes): keep only a few parsed. */
const MAX_DOCS = 4;
const MAX_DOC_BYTES = 64 * 1024 * 1024;
/** `$ref`s are inlined to this depth; deeper ones stay as references. */
const MAX_DEPTH = 8;
/** Total schema nodes inlined per answer, so a kind like CustomResourceDefinition stays bounded. */
const MAX_NODES = 20000;
const REF_PREFIX = '#/components/schemas/';

/**
 * Schemas from the OpenAPI v3 endpoint: `/openapi/v3` lists one document per
 * group version with a content hash in its URL, so a cached document keyed by
 * that URL can never be stale.
 */
export class KubeOpenApi {
  private readonly docs = new Map<string, OpenApiDoc>();

  constructor(private readonly transport: KubeTransport) {}

  async schema(apiVersion: string, kind: string): Promise<ResourceSchema | null> {
    let index: { paths?: Record<string, { serverRelativeURL?: string }> };
    try {
      index = await this.transport.json({ method: 'GET', path: '/openapi/v3' });
    } catch (e) {
      if (e instanceof KubeStatusError && e.code === 404) return null; // server older than 1.27 without v3
      throw e;
    }
    const key = apiVersion.includes('/') ? `apis/${apiVersion}` : `api/${apiVersion}`;
    const url = index.paths?.[key]?.serverRelativeURL;
    if (!url || !url.startsWith('/openapi/v3/')) return null;
    const doc = await this.document(url);
    const schemas = doc.components?.schemas ?? {};
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
    const name = Object.keys(schemas).find((n) => {
      const gvks = schemas[n]['x-kubernetes-group-version-kind'];
      return Array.isArray(gvks) && gvks.some((g: Json) => g.group === group && g.version === version && g.kind === kind);
    });
    if (!name) return null;
    const budget = { nodes: MAX_NODES };
    return { apiVersion, kind, schema: inline(schemas[name], schemas, [name], budget) as Json };
  }

  private async document(serverRelativeUrl: string): Promise<OpenApiDoc> {
    const cached = this.docs.get(serverRelativeUrl);
    if (cached) {
      this.docs.delete(serverRelativeUrl);
      this.docs.set(serverRelativeUrl, cached);
      return cached;
    }
    const [path, query] = serverRelativeUrl.split('?');
    const doc = await this.transport.json<OpenApiDoc>({
      method: 'GET',
      path,
      query: Object.fromEntries(new URLSearchParams(query ?? '')),
      maxBytes: MAX_DOC_BYTES,
    });
    if (this.docs.size >= MAX_DOCS) this.docs.delete(this.docs.keys().next().value as string);
    this.docs.set(serverRelativeUrl, doc);
    return doc;
  }
}

/** Copies `node`, replacing local `$ref`s by their targets; cycles and deep or over-budget refs stay refs. */
function inline(node: unknown, schemas: Record<string, Json>, path: string[], budget: { nodes: number }): unknown {
  if (Array.isArray(node)) return node.map((n) => inline(n, schemas, path, budget));
  if (!node || typeof node !== 'object') return node;
  budget.nodes--;
  const obj = node as Json;
  const ref = typeof obj.$ref === 'string' ? obj.$ref : undefined;
  if (ref?.startsWith(REF_PREFIX)) {
    const target = ref.slice(REF_PREFIX.length);
    if (schemas[target] && !path.includes(target) && path.length < MAX_DEPTH && budget.nodes > 0) {
      const { $ref: _omit, ...siblings } = obj;
      return { ...(inline(schemas[target], schemas, [...path, target], budget) as Json), ...siblings };
    }
    return obj;
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(obj)) out[k] = inline(v, schemas, path, budget);
  return out;
}
