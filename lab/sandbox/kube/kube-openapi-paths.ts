/**
 * The `paths` of the stand-in's OpenAPI documents, and the OpenAPI v2
 * (Swagger) document built from the v3 ones, as kube-apiserver publishes them:
 * per resource, the collection (list, create) and the item (read, replace,
 * patch, delete), each operation carrying `x-kubernetes-action` and
 * `x-kubernetes-group-version-kind`, the writes their `dryRun`, `fieldManager`
 * and `fieldValidation` query parameters (patch also `force`). kubectl reads
 * them: `apply` and `diff` check a kind's PATCH for `fieldValidation` before
 * asking the server to validate (without it they fall back to validating
 * against /openapi/v2 themselves), and `explain` finds a resource's schema
 * through the GET of its path.
 */
import type { FakeResource } from './kube-fixtures.js';

type Doc = Record<string, unknown>;
type Schema = Record<string, unknown>;

const query = (name: string, description: string) => ({ name, in: 'query', description, schema: { type: 'string', uniqueItems: true } });
const PRETTY = query('pretty', "If 'true', then the output is pretty printed.");
const DRY_RUN = query(
  'dryRun',
  'When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed',
);
const FIELD_MANAGER = query('fieldManager', 'fieldManager is a name associated with the actor or entity that is making these changes.');
const FIELD_VALIDATION = query(
  'fieldValidation',
  'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: Ignore, Warn (the default), Strict.',
);
const FORCE = { name: 'force', in: 'query', description: 'Force is going to "force" Apply requests.', schema: { type: 'boolean', uniqueItems: true } };
const PATH_PARAM = (name: string, description: string) => ({ name, in: 'path', required: true, description, schema: { type: 'string', uniqueItems: true } });

/** The schema name of a kind in a document (by its x-kubernetes-group-version-kind), if the document describes it. */
function schemaOf(doc: Doc, kind: string): string | undefined {
  const schemas = ((doc.components as Doc | undefined)?.schemas ?? {}) as Record<string, Schema>;
  return Object.keys(schemas).find((k) => (schemas[k]['x-kubernetes-group-version-kind'] as { kind: string }[] | undefined)?.some((g) => g.kind === kind));
}

const json = (ref: string | undefined) => ({ content: { 'application/json': { schema: ref ? { $ref: `#/components/schemas/${ref}` } : { type: 'object' } } } });

/** `paths` for a group version's document (`apis/apps/v1`) over the resources it serves. */
export function resourcePaths(key: string, doc: Doc, resources: FakeResource[]): Record<string, Doc> {
  const gv = key.replace(/^apis?\//, '');
  const [group, version] = gv.includes('/') ? gv.split('/') : ['', gv];
  const paths: Record<string, Doc> = {};
  for (const r of resources.filter((x) => !x.name.includes('/'))) {
    const ref = schemaOf(doc, r.kind);
    const gvk = { group, kind: r.kind, version };
    const op = (action: string, verb: string, parameters: unknown[], extra: Doc = {}) => ({
      description: `${verb} the specified ${r.kind}`,
      operationId: `${action}${r.kind}`,
      parameters,
      responses: { '200': { description: 'OK', ...json(ref) }, '401': { description: 'Unauthorized' } },
      'x-kubernetes-action': action,
      'x-kubernetes-group-version-kind': gvk,
      ...extra,
    });
    const ns = r.namespaced ? '/namespaces/{namespace}' : '';
    const nsParam = r.namespaced ? [PATH_PARAM('namespace', 'object name and auth scope, such as for teams and projects')] : [];
    const body = { requestBody: { required: true, ...json(ref) } };
    paths[`/${key}${ns}/${r.name}`] = {
      get: op('list', 'list or watch objects of kind', []),
      post: op('post', 'create', [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION], body),
      parameters: [...nsParam, PRETTY],
    };
    paths[`/${key}${ns}/${r.name}/{name}`] = {
      get: op('get', 'read', []),
      put: op('put', 'replace', [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION], body),
      patch: op('patch', 'partially update', [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION, FORCE], {
        requestBody: { required: true, content: { 'application/apply-patch+yaml': { schema: { type: 'object' } } } },
      }),
      delete: op('delete', 'delete', [DRY_RUN]),
      parameters: [PATH_PARAM('name', `name of the ${r.kind}`), ...nsParam, PRETTY],
    };
  }
  return paths;
}

const rewriteRefs = (v: unknown): unknown => JSON.parse(JSON.stringify(v).replaceAll('"#/components/schemas/', '"#/definitions/')) as unknown;

/** `/openapi/v2`: every v3 document's schemas as `definitions` and its paths as Swagger operations. */
export function openApiV2(docs: Record<string, Doc>): Doc {
  const definitions: Record<string, unknown> = {};
  const paths: Record<string, unknown> = {};
  for (const doc of Object.values(docs)) {
    Object.assign(definitions, ((doc.components as Doc | undefined)?.schemas ?? {}) as Doc);
    for (const [p, item] of Object.entries((doc.paths ?? {}) as Record<string, Doc>)) {
      const out: Doc = {};
      for (const [method, o] of Object.entries(item)) {
        if (method === 'parameters') {
          out.parameters = (o as Doc[]).map(v2Param);
          continue;
        }
        const { requestBody: _b, responses, parameters, ...rest } = o as Doc;
        const ok = (responses as Record<string, Doc>)['200'];
        const schema = ((ok.content as Record<string, Doc> | undefined)?.['application/json'] as Doc | undefined)?.schema;
        out[method] = {
          ...rest,
          consumes: ['*/*'],
          produces: ['application/json', 'application/yaml'],
          schemes: ['https'],
          parameters: (parameters as Doc[]).map(v2Param),
          responses: { '200': { description: 'OK', ...(schema ? { schema } : {}) }, '401': { description: 'Unauthorized' } },
        };
      }
      paths[p] = out;
    }
  }
  return rewriteRefs({ swagger: '2.0', info: { title: 'Kubernetes', version: 'v1.31.2' }, paths, definitions }) as Doc;
}

function v2Param(p: Doc): Doc {
  const { schema, ...rest } = p;
  return { ...rest, ...(schema as Doc) };
}
