import { UsageError } from './cli-errors.js';

/** The part of a tool's input JSON Schema the flag parser reads. */
interface PropertySchema {
  type?: string;
  items?: PropertySchema;
  enum?: unknown[];
  description?: string;
}

export interface ToolInputSchema {
  properties?: Record<string, PropertySchema>;
  required?: string[];
}

function kindOf(prop: PropertySchema): string {
  if (prop.type) return prop.type;
  // Unions and anything without a plain type: a JSON literal when it parses, a string otherwise.
  return 'any';
}

function coerce(tool: string, name: string, prop: PropertySchema, raw: string): unknown {
  const kind = kindOf(prop);
  if (kind === 'string') return raw;
  if (kind === 'number' || kind === 'integer') {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n)) throw new UsageError(`--${name} of ${tool} expects a number, got "${raw}"`);
    return n;
  }
  if (kind === 'boolean') {
    if (raw === 'true') return true;
    if (raw === 'false') return false;
    throw new UsageError(`--${name} of ${tool} expects true or false, got "${raw}"`);
  }
  if (kind === 'object') {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw new UsageError(`--${name} of ${tool} expects a JSON object, for example '{"key": "value"}'`);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new UsageError(`--${name} of ${tool} expects a JSON object, for example '{"key": "value"}'`);
    }
    return value;
  }
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/**
 * Turns `--name value` pairs into a tool input, typed by the tool's own input
 * schema (the same JSON Schema the catalog publishes): numbers and booleans
 * become JSON numbers and booleans, a repeated flag fills an array, an object
 * parameter takes JSON. A bare boolean flag means true. `--name=value` works
 * too, for values that start with `--`. Values override the `base` (from --json).
 */
export function parseToolParams(tool: string, schema: ToolInputSchema, argv: readonly string[], base: Record<string, unknown> = {}): Record<string, unknown> {
  const props = schema.properties ?? {};
  const out: Record<string, unknown> = { ...base };
  const fromFlags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i];
    if (!token.startsWith('--') || token.length === 2) {
      throw new UsageError(`Unexpected argument "${token}": tool parameters are given as --name value`);
    }
    const eq = token.indexOf('=');
    const name = eq === -1 ? token.slice(2) : token.slice(2, eq);
    const prop = props[name];
    if (!prop) {
      const known = Object.keys(props);
      throw new UsageError(
        `Unknown parameter --${name} for tool ${tool}; ${known.length ? `its parameters are: ${known.map((k) => `--${k}`).join(', ')}` : 'it takes no parameters'}`,
      );
    }
    let raw: string | undefined = eq === -1 ? undefined : token.slice(eq + 1);
    if (raw === undefined) {
      const next = argv[i + 1];
      const hasValue = next !== undefined && !next.startsWith('--');
      if (kindOf(prop) === 'boolean' && !(next === 'true' || next === 'false')) {
        out[name] = true;
        fromFlags.add(name);
        continue;
      }
      if (!hasValue) throw new UsageError(`--${name} of ${tool} needs a value`);
      raw = next;
      i++;
    }
    if (kindOf(prop) === 'array') {
      const item = coerce(tool, name, prop.items ?? {}, raw);
      // The first occurrence replaces a --json value; later ones append.
      const previous = fromFlags.has(name) && Array.isArray(out[name]) ? (out[name] as unknown[]) : [];
      out[name] = [...previous, item];
    } else {
      if (fromFlags.has(name)) throw new UsageError(`--${name} of ${tool} is given more than once`);
      out[name] = coerce(tool, name, prop, raw);
    }
    fromFlags.add(name);
  }
  return out;
}

/** One line per parameter, for `svc run <tool> --help`. */
export function describeParams(schema: ToolInputSchema): string {
  const props = Object.entries(schema.properties ?? {});
  if (props.length === 0) return '  (no parameters)';
  const required = new Set(schema.required ?? []);
  const width = Math.max(...props.map(([n, p]) => `--${n} <${kindOf(p)}>`.length));
  return props
    .map(([name, p]) => {
      const flag = `--${name} <${p.enum ? p.enum.join('|') : kindOf(p)}>`;
      const note = required.has(name) ? ' (required)' : '';
      return `  ${flag.padEnd(Math.max(width, flag.length))}  ${p.description ?? ''}${note}`;
    })
    .join('\n');
}
