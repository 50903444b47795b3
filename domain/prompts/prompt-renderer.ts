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

/**
 * Renders a prompt: substitutes the declared arguments for their `{{name}}`
 * placeholders in one pass (a value that itself contains `{{x}}` is not
 * expanded again), leaves undeclared placeholders as written, and attaches a
 * skill's files base64-encoded. Throws ValidationError naming every missing
 * required argument (absent, null or empty), or an argument of the wrong type.
 */
export function renderPrompt(prompt: Prompt, args: PromptArgumentValues | undefined): RenderedPrompt {
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

  const text = prompt.body.replace(PLACEHOLDER, (whole, name: string) => values.get(name) ?? whole);
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
