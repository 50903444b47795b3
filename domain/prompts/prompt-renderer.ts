import { ValidationError } from '../errors.js';
import type { Prompt, RenderedPrompt } from './prompt.js';

/** Argument values as they arrive in a request body. */
export type PromptArgumentValues = Record<string, unknown>;

// `{{name}}`, spaces inside the braces allowed.
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}/g;

function toText(name: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new ValidationError(`Invalid argument ${name}: expected a string, number or boolean`);
}

function octal(mode: number): string {
  return `0${(mode & 0o777).toString(8).padStart(3, '0')}`;
}

/** A prompt body split at its placeholders: `literals[i]`, then placeholder i, ..., then the last literal. */
export interface PromptTemplate<T = string> {
  /** One more than `placeholders`. */
  literals: readonly T[];
  /** Each placeholder's argument name and its text as written (kept when the name is not declared). */
  placeholders: readonly { name: string; raw: T }[];
}

/** The same template with every piece of text turned into something else once (for example, serialized). */
export function mapTemplate<T>(t: PromptTemplate, f: (s: string) => T): PromptTemplate<T> {
  return { literals: t.literals.map(f), placeholders: t.placeholders.map((p) => ({ name: p.name, raw: f(p.raw) })) };
}

// a prompt is immutable once loaded: its split body lives as long as it does
const templates = new WeakMap<Prompt, PromptTemplate>();

/** The prompt's body split at its `{{name}}` placeholders, split once per prompt. */
export function templateOf(prompt: Prompt): PromptTemplate {
  let t = templates.get(prompt);
  if (!t) {
    const literals: string[] = [];
    const placeholders: { name: string; raw: string }[] = [];
    let at = 0;
    for (const m of prompt.body.matchAll(PLACEHOLDER)) {
      literals.push(prompt.body.slice(at, m.index));
      placeholders.push({ name: m[1], raw: m[0] });
      at = m.index! + m[0].length;
    }
    literals.push(prompt.body.slice(at));
    t = { literals, placeholders };
    templates.set(prompt, t);
  }
  return t;
}

/**
 * The text of every declared argument ('' for an optional one not given).
 * Throws ValidationError naming every missing required argument (absent,
 * null or empty), or an argument of the wrong type.
 */
export function argumentValues(prompt: Prompt, args: PromptArgumentValues | undefined): Map<string, string> {
  const given = args ?? {};
  const values = new Map<string, string>();
  const missing: string[] = [];
  for (const declared of prompt.arguments) {
    const text = Object.prototype.hasOwnProperty.call(given, declared.name) ? toText(declared.name, given[declared.name]) : undefined;
    if (text === undefined || (declared.required && text.trim() === '')) {
      if (declared.required) missing.push(declared.name);
      values.set(declared.name, '');
    } else {
      values.set(declared.name, text);
    }
  }
  if (missing.length === 1) throw new ValidationError(`Missing required argument: ${missing[0]}`);
  if (missing.length > 1) throw new ValidationError(`Missing required arguments: ${missing.join(', ')}`);
  return values;
}

/**
 * The pieces of a rendered text: each literal, and for each placeholder the
 * declared argument's text through `value`, or the placeholder as written when
 * the name is not declared. The one substitution every renderer uses.
 */
export function substitute<T>(t: PromptTemplate<T>, values: ReadonlyMap<string, string>, value: (s: string) => T): T[] {
  const out: T[] = [t.literals[0]];
  for (let i = 0; i < t.placeholders.length; i++) {
    const p = t.placeholders[i];
    const v = values.get(p.name);
    out.push(v === undefined ? p.raw : value(v), t.literals[i + 1]);
  }
  return out;
}

const same = (s: string) => s;

/** The rendered prompt whose one message is `text`. */
export function renderedWith(prompt: Prompt, text: string): RenderedPrompt {
  return {
    description: prompt.description,
    messages: [{ role: 'user', content: { type: 'text', text } }],
    ...(prompt.files.length
      ? {
          files: prompt.files.map((f) => ({ path: f.path, content: f.content.toString('base64'), mode: octal(f.mode) })),
        }
      : {}),
  };
}

/**
 * Renders a prompt: substitutes the declared arguments for their `{{name}}`
 * placeholders in one pass (a value that itself contains `{{x}}` is not
 * expanded again), leaves undeclared placeholders as written, and attaches a
 * skill's files base64-encoded. Throws as `argumentValues` does.
 */
export function renderPrompt(prompt: Prompt, args: PromptArgumentValues | undefined): RenderedPrompt {
  return renderedWith(prompt, substitute(templateOf(prompt), argumentValues(prompt, args), same).join(''));
}
