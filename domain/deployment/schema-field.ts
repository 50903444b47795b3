/**
 * Reading one field of a kind's OpenAPI v3 schema (as ClusterReader.getResourceSchema
 * returns it: `$ref`s inlined, references still wrapped in `allOf`).
 */
export type JsonSchema = Record<string, unknown>;

const isObject = (v: unknown): v is JsonSchema => !!v && typeof v === 'object' && !Array.isArray(v);

/** The node with its single-`allOf` wrappers folded in (kube-apiserver wraps every reference so). */
export function unwrap(node: unknown): JsonSchema | undefined {
  if (!isObject(node)) return undefined;
  let out: JsonSchema = { ...node };
  for (let depth = 0; depth < 5 && Array.isArray(out.allOf); depth++) {
    const parts = (out.allOf as unknown[]).filter(isObject);
    const { allOf: _drop, ...rest } = out;
    out = Object.assign({}, ...parts, rest) as JsonSchema;
  }
  return out;
}

/**
 * The schema of `field` (a dotted path, `[]` stepping into array items, map
 * values through `additionalProperties`); undefined when the schema has no such field.
 */
export function schemaAt(schema: JsonSchema, field: string): JsonSchema | undefined {
  let node = unwrap(schema);
  for (const raw of field.split('.')) {
    if (!node) return undefined;
    const fanOut = raw.endsWith('[]');
    const key = fanOut ? raw.slice(0, -2) : raw;
    const props = isObject(node.properties) ? node.properties : undefined;
    let next = props && Object.hasOwn(props, key) ? unwrap(props[key]) : undefined;
    if (!next && isObject(node.additionalProperties)) next = unwrap(node.additionalProperties);
    if (next && fanOut) next = next.type === 'array' ? unwrap(next.items) : undefined;
    node = next;
  }
  return node;
}

/** Whether `field` is listed in its parent's `required`. */
export function isRequiredField(schema: JsonSchema, field: string): boolean {
  const parts = field.split('.');
  const last = parts.pop()!.replace(/\[\]$/, '');
  const parent = parts.length ? schemaAt(schema, parts.join('.')) : unwrap(schema);
  return Array.isArray(parent?.required) && (parent.required as unknown[]).includes(last);
}

/** The first sentence of a description, bounded, without the "Possible enum values" text. */
export function shortDescription(node: JsonSchema | undefined, max = 160): string {
  const text = typeof node?.description === 'string' ? node.description.split('\n\n')[0].trim() : '';
  const first = /^(.*?[.!?])(\s|$)/.exec(text)?.[1] ?? text;
  return first.length > max ? `${first.slice(0, max - 1)}…` : first;
}

/** Scalar properties of an object schema (not objects or arrays), with their names. */
export function scalarProperties(node: JsonSchema | undefined): [string, JsonSchema][] {
  const props = isObject(node?.properties) ? node.properties : {};
  return Object.entries(props)
    .map(([k, v]) => [k, unwrap(v)] as [string, JsonSchema | undefined])
    .filter((e): e is [string, JsonSchema] => !!e[1] && ['string', 'integer', 'number', 'boolean'].includes(String(e[1].type)));
}
