/** What a short JSON render body asks for, as the express path would read it. */
export type RenderAsk =
  /** A body express parses and tsoa accepts: render with these arguments (undefined: none). */
  | { arguments: Record<string, unknown> | undefined }
  /** A body express refuses with 400 "Request body is not valid JSON". */
  | 'not-json';

/** The bodies that ask for a render without arguments, exactly as a client sends them. */
const NO_ARGUMENT_BODIES = new Set(['{}', '{"arguments":{}}']);
const NONE: RenderAsk = { arguments: undefined };
/** body-parser's strict mode looks at the first character after these. */
const JSON_SPACE = /^[ \t\n\r]*/;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Reads a render body the way the express path does (express.json strict,
 * then tsoa's check of `RenderPromptRequest`: only `arguments`, an object of
 * any values), but only as far as it can be sure of the same outcome:
 * undefined leaves the body to express, which stays the one definition of
 * every other answer (a top-level array or scalar, a byte-order mark, an
 * extra property, `arguments` that is not an object, a `__proto__` key).
 */
export function renderAskOf(body: Buffer): RenderAsk | undefined {
  const text = body.toString('utf8');
  if (NO_ARGUMENT_BODIES.has(text)) return NONE;
  // body-parser strips a byte-order mark before parsing; JSON.parse would not
  if (text.charCodeAt(0) === 0xfeff) return undefined;
  // strict mode refuses anything but an object or array before parsing (the same 400); arrays are tsoa's to refuse
  if (text[JSON_SPACE.exec(text)![0].length] !== '{') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'not-json';
  }
  if (!isPlainObject(parsed)) return undefined;
  const keys = Object.keys(parsed);
  if (keys.length === 0) return NONE;
  if (keys.length !== 1 || keys[0] !== 'arguments') return undefined;
  const args = parsed.arguments;
  if (!isPlainObject(args) || Object.prototype.hasOwnProperty.call(args, '__proto__')) return undefined;
  return Object.keys(args).length === 0 ? NONE : { arguments: args };
}
