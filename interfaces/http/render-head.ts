import type { Prompt } from '../../domain/prompts/prompt.js';
import {
  argumentValues,
  mapTemplate,
  renderedWith,
  renderPrompt,
  substitute,
  templateOf,
  type PromptArgumentValues,
  type PromptTemplate,
} from '../../domain/prompts/prompt-renderer.js';
import { envelopeHead } from './envelope.js';

/** Stands for the rendered text while the rest of the answer is serialized once. */
const MARK = '\u0000svc:rendered-text\u0000';
const MARK_JSON = JSON.stringify(MARK).slice(1, -1);
/** A prompt whose answer (skill files included) serializes longer than this is serialized per render, not kept. */
const MAX_KEPT_CHARS = 1024 * 1024;

interface Serialized {
  source: string;
  /** The envelope up to the text, the text's pieces and what follows it, all serialized JSON already; absent: serialize per render. */
  parts?: { before: string; template: PromptTemplate; after: string; ascii: boolean };
}

// a prompt is immutable once loaded: its serialized answer lives as long as it does (and is bounded by it)
const kept = new WeakMap<Prompt, Serialized>();

/** What JSON.stringify escapes in a string: quote, backslash, control characters, surrogates (when lone). */
// eslint-disable-next-line no-control-regex -- the control characters are what is looked for
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
/** The JSON string contents of `s`; most values need no escaping and skip the stringify. */
const escapeJson = (s: string) => (NEEDS_ESCAPE.test(s) ? JSON.stringify(s).slice(1, -1) : s);
const ASCII = /^[^\u0080-\uffff]*$/;
const isSurrogate = (code: number) => code >= 0xd800 && code <= 0xdfff;
/** A piece that starts or ends with half of a surrogate pair could pair with its neighbour: serialized alone it would differ. */
const edgeSurrogate = (s: string) => s.length > 0 && (isSurrogate(s.charCodeAt(0)) || isSurrogate(s.charCodeAt(s.length - 1)));

function allAscii(values: ReadonlyMap<string, string>): boolean {
  for (const v of values.values()) if (!ASCII.test(v)) return false;
  return true;
}

function anyEdgeSurrogate(values: ReadonlyMap<string, string>): boolean {
  for (const v of values.values()) if (edgeSurrogate(v)) return true;
  return false;
}

function serialize(prompt: Prompt, source: string): Serialized {
  const template = templateOf(prompt);
  if ([...template.literals, ...template.placeholders.map((p) => p.raw)].some(edgeSurrogate)) return { source };
  const whole = JSON.stringify({ ...renderedWith(prompt, MARK), source });
  const at = whole.indexOf(MARK_JSON);
  if (at === -1 || whole.indexOf(MARK_JSON, at + 1) !== -1 || whole.length > MAX_KEPT_CHARS) return { source };
  const before = `{"success":true,"data":${whole.slice(0, at)}`;
  const after = `${whole.slice(at + MARK_JSON.length)},"meta":`;
  const escaped = mapTemplate(template, escapeJson);
  const ascii = [before, after, ...escaped.literals, ...escaped.placeholders.map((p) => p.raw)].every((x) => ASCII.test(x));
  return { source, parts: { before, template: escaped, after, ascii } };
}

/**
 * The success envelope up to `"meta":` of `prompt` rendered with `args` from
 * `source`: the same bytes as `envelopeHead({ ...renderPrompt(prompt, args),
 * source })`, from the answer serialized once per prompt, with only the
 * argument values escaped per render. Throws as renderPrompt does.
 */
export function renderedHead(prompt: Prompt, source: string, args: PromptArgumentValues | undefined): Buffer {
  const values = argumentValues(prompt, args);
  let s = kept.get(prompt);
  if (s?.source !== source) kept.set(prompt, (s = serialize(prompt, source)));
  if (!s.parts || anyEdgeSurrogate(values)) return envelopeHead({ ...renderPrompt(prompt, args), source });
  const { before, template, after, ascii } = s.parts;
  const text = `${before}${substitute(template, values, escapeJson).join('')}${after}`;
  // ASCII text is its own UTF-8: copied byte for byte, not encoded
  return Buffer.from(text, ascii && allAscii(values) ? 'latin1' : 'utf8');
}
