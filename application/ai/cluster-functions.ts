import { z } from 'zod';
import { FIELD_PATH_PATTERN, MAX_FIELD_PATH_CHARS, selectField } from '../../domain/cluster/field-path.js';
import { eventLine, objectReport } from '../../domain/cluster/object-report.js';
import { summarizeObject } from '../../domain/cluster/object-summary.js';
import { issueLines } from '../../domain/validation/zod-issues.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import { scrubSecretsInValue } from '../../domain/security/scrub-secrets.js';
import type { ModelFunction } from './tool-loop.js';

const apiVersion = z.string().min(1).max(100).describe('v1 or <group>/<version>, e.g. apps/v1');
const kind = z.string().min(1).max(63).describe('CamelCase kind, e.g. Deployment');
const namespace = z.string().min(1).max(63).describe('Namespace');
const name = z.string().min(1).max(253).describe('Object name');
const fieldPath = z
  .string()
  .max(MAX_FIELD_PATH_CHARS)
  .regex(FIELD_PATH_PATTERN, 'keys separated by dots, [n] or [name=x] for a list item')
  .describe('Answer only this part of the object, e.g. spec.template.spec.containers, status.conditions or spec.template.spec.containers[name=web].env');

/** Items listed per call; the model is told how many more there were. */
export const MAX_LISTED = 50;
/** Log lines per call (the tail). */
export const MAX_LOG_LINES = 300;

function fn<S extends z.ZodObject>(
  name: string,
  description: string,
  schema: S,
  run: (args: z.infer<S>) => Promise<unknown>,
  keep?: ModelFunction['keep'],
): ModelFunction {
  return {
    ...(keep ? { keep } : {}),
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
 * read-only cluster port alone: nothing here can change the cluster. Objects
 * are scrubbed of credentials before they are rendered (Secret data, env
 * values named like credentials), and the loop scrubs every result. Results
 * are compact (one line per listed object, the tail of logs) so that the
 * loop's byte budget is rarely needed. Built once per reader (their specs,
 * JSON schemas included, are the same for every use case and every run), on
 * the first loop that needs them: the use cases ask when a loop starts, not
 * when they are built, so their schemas are no part of the server's start.
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
    fn(
      'get_resource',
      'Get one object: its one-line status, its status, then the object as JSON; with fieldPath, only that part of it.',
      z.strictObject({ apiVersion, kind, name, namespace: namespace.optional(), fieldPath: fieldPath.optional() }),
      async ({ fieldPath: path, ...ref }) => {
        const read = await cluster.get(ref);
        if (!read) return notFound(ref);
        const object = scrubSecretsInValue(read) as typeof read;
        if (path === undefined) return objectReport(object);
        const field = selectField(object, path);
        if (!field.found) throw new Error(field.problem);
        return `${summarizeObject(object)}\n${path}: ${JSON.stringify(field.value ?? null)}`;
      },
    ),
    fn(
      'describe_resource',
      'Get one object like kubectl describe: its one-line status, its status, the events about it, then the object as JSON.',
      z.strictObject({ apiVersion, kind, name, namespace: namespace.optional() }),
      async (a) => {
        const found = await cluster.describe(a);
        return found ? objectReport(scrubSecretsInValue(found.object) as typeof found.object, found.events) : notFound(a);
      },
    ),
    fn(
      'list_events',
      'List recent events, optionally about one object.',
      z.strictObject({ namespace: namespace.optional(), involvedKind: kind.optional(), involvedName: name.optional() }),
      async (a) => {
        const involved = a.involvedKind && a.involvedName ? { involvedObject: { kind: a.involvedKind, name: a.involvedName } } : {};
        const events = await cluster.events({ namespace: a.namespace, ...involved, limit: 100 });
        return events.slice(-40).map(eventLine).join('\n') || 'no events';
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
      // the crash lines are at the end
      'tail',
    ),
  ];
}

function notFound(ref: { kind: string; name: string; namespace?: string }): string {
  return `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name} not found`;
}
