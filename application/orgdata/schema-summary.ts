/** Longest schema summary a model is shown for one kind. */
export const MAX_SCHEMA_SUMMARY = 6000;
const MAX_DEPTH = 3;
const MAX_FIELDS = 60;

type Json = Record<string, unknown>;

/**
 * A kind's OpenAPI schema as a few lines a model can read: its description
 * and field paths with type and a short description, bounded in depth, count
 * and length (a CRD schema can be megabytes).
 */
export function summariseSchema(schema: Json): string {
  const lines: string[] = [];
  if (typeof schema.description === 'string') lines.push(oneLine(schema.description, 400));
  const walk = (node: Json, prefix: string, depth: number) => {
    const props = node.properties;
    if (!props || typeof props !== 'object' || depth > MAX_DEPTH) return;
    for (const [name, raw] of Object.entries(props as Json)) {
      if (lines.length >= MAX_FIELDS) return;
      if (['apiVersion', 'kind', 'metadata', 'status'].includes(name) && depth === 0) continue;
      const prop = flatten(raw);
      const type = typeof prop.type === 'string' ? prop.type : 'object';
      const description = typeof prop.description === 'string' ? `: ${oneLine(prop.description, 160)}` : '';
      lines.push(`${prefix}${name} (${type})${description}`);
      walk(prop, `${prefix}${name}.`, depth + 1);
    }
  };
  walk(flatten(schema), '', 0);
  const text = lines.join('\n');
  return text.length <= MAX_SCHEMA_SUMMARY ? text : `${text.slice(0, MAX_SCHEMA_SUMMARY)}\n…`;
}

/** `allOf: [{...}]` wrappers (how Kubernetes attaches a description to a $ref) merged into one node. */
function flatten(raw: unknown): Json {
  if (!raw || typeof raw !== 'object') return {};
  const node = raw as Json;
  if (!Array.isArray(node.allOf)) return node;
  return Object.assign({}, ...node.allOf.map(flatten), { ...node, allOf: undefined });
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max)}…`;
}
