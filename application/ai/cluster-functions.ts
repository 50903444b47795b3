import { z } from 'zod';
import { compactObject, summarizeObject } from '../../domain/cluster/object-summary.js';
import { issueLines } from '../../domain/validation/zod-issues.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { ModelFunction } from './tool-loop.js';

const apiVersion = z.string().min(1).max(100).describe('v1 or <group>/<version>, e.g. apps/v1');
const kind = z.string().min(1).max(63).describe('CamelCase kind, e.g. Deployment');
const namespace = z.string().min(1).max(63).describe('Namespace');
const name = z.string().min(1).max(253).describe('Object name');

/** Items listed per call; the model is told how many more there were. */
export const MAX_LISTED = 50;
/** Log lines per call (the tail). */
export const MAX_LOG_LINES = 300;

function fn<S extends z.ZodObject>(name: string, description: string, schema: S, run: (args: z.infer<S>) => Promise<unknown>): ModelFunction {
  return {
    spec: { name, description, parameters: z.toJSONSchema(schema) as Record<string, unknown> },
    async run(raw) {
      const parsed = schema.safeParse(raw);
      if (!parsed.success) {
        throw new Error(`invalid arguments: ${issueLines(parsed.error).join('; ')}`);
      }
      return run(parsed.data);
    },
  };
}

const built = new WeakMap<ClusterReader, readonly ModelFunction[]>();

/**
 * The functions a model may call while it investigates, built from the
 * read-only cluster port alone: nothing here can change the cluster. Results
 * are compact (one line per listed object, the tail of logs) so that the
 * loop's byte budget is rarely needed. Built once per reader (their specs,
 * JSON schemas included, are the same for every use case and every run).
 */
export function clusterFunctions(cluster: ClusterReader): readonly ModelFunction[] {
  let functions = built.get(cluster);
  if (!functions) built.set(cluster, (functions = buildClusterFunctions(cluster)));
  return functions;
}

function buildClusterFunctions(cluster: ClusterReader): readonly ModelFunction[] {
  return [
    fn('list_api_resources', 'List the resource kinds this cluster serves (apiVersion, kind, namespaced).', z.strictObject({}), async () => {
      const all = await cluster.listApiResources();
      return all.map((r) => `${r.apiVersion} ${r.kind}${r.namespaced ? '' : ' (cluster-scoped)'}`).join('\n');
    }),
    fn(
      'list_resources',
      `List objects of one kind with a one-line status each (at most ${MAX_LISTED}).`,
      z.strictObject({
        apiVersion,
        kind,
        namespace: namespace.optional().describe('Namespace; omit for all namespaces or a cluster-scoped kind'),
        labelSelector: z.string().max(500).optional().describe('e.g. app=web'),
      }),
      async (a) => {
        const page = await cluster.list({ ...a, limit: MAX_LISTED });
        const lines = page.items.map(summarizeObject);
        if (lines.length === 0) return `no ${a.kind} objects found`;
        return page.continueToken ? [...lines, `(more than ${MAX_LISTED}: narrow with namespace or labelSelector)`].join('\n') : lines.join('\n');
      },
    ),
    fn('get_resource', 'Get one object as JSON (spec and status).', z.strictObject({ apiVersion, kind, name, namespace: namespace.optional() }), async (a) => {
      const object = await cluster.get(a);
      return object ? compactObject(object) : `${a.kind} ${a.namespace ? `${a.namespace}/` : ''}${a.name} not found`;
    }),
    fn(
      'describe_resource',
      'Get one object with its one-line status and the events about it (like kubectl describe).',
      z.strictObject({ apiVersion, kind, name, namespace: namespace.optional() }),
      async (a) => {
        const found = await cluster.describe(a);
        if (!found) return `${a.kind} ${a.namespace ? `${a.namespace}/` : ''}${a.name} not found`;
        return { summary: summarizeObject(found.object), object: compactObject(found.object), events: found.events.slice(-30) };
      },
    ),
    fn(
      'list_events',
      'List recent events, optionally about one object.',
      z.strictObject({ namespace: namespace.optional(), involvedKind: kind.optional(), involvedName: name.optional() }),
      async (a) => {
        const involved = a.involvedKind && a.involvedName ? { involvedObject: { kind: a.involvedKind, name: a.involvedName } } : {};
        const events = await cluster.events({ namespace: a.namespace, ...involved, limit: 100 });
        return (
          events
            .slice(-40)
            .map((e) => `${e.type} ${e.reason} ${e.involvedObject.kind}/${e.involvedObject.name} x${e.count}: ${e.message}`)
            .join('\n') || 'no events'
        );
      },
    ),
    fn(
      'get_pod_logs',
      `Read the last lines of a container's log (at most ${MAX_LOG_LINES}); previous=true reads the crashed instance.`,
      z.strictObject({
        namespace,
        pod: name,
        container: z.string().min(1).max(63).optional(),
        tailLines: z.number().int().min(1).max(MAX_LOG_LINES).optional().describe(`Lines from the end, default 100`),
        previous: z.boolean().optional(),
      }),
      async (a) => (await cluster.logs({ ...a, tailLines: a.tailLines ?? 100, limitBytes: 32768 })) || '(empty log)',
    ),
  ];
}
