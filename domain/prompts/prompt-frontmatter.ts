import { parseDocument } from 'yaml';
import { z } from 'zod';
import type { PromptArgument } from './prompt.js';

/** A prompt file that cannot be used; the loader skips it and logs the reason. */
export class MalformedPromptError extends Error {}

/** Names travel in URL paths and placeholders, so they stay in a conservative alphabet. */
export const PROMPT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
const ARGUMENT_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

const argumentSchema = z.object({
  name: z.string().regex(ARGUMENT_NAME, 'argument names use letters, digits, _ . - and start with a letter or _'),
  description: z.string().default(''),
  required: z.boolean().default(false),
});

const frontmatterSchema = z.object({
  name: z.string().regex(PROMPT_NAME, 'name uses letters, digits, _ . - (at most 128)').optional(),
  description: z.string().min(1, 'description must not be empty'),
  arguments: z.array(argumentSchema).max(64).default([]),
});

export interface ParsedPromptFile {
  /** From the frontmatter, or the fallback (file stem, folder name) when it has none. */
  name: string;
  description: string;
  arguments: PromptArgument[];
  body: string;
}

// `---` on the first line, YAML, then `---` (or YAML's `...`) on a line of its own.
const FRONTMATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;

function issueText(error: z.ZodError): string {
  return error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}

/**
 * Parses a prompt markdown file. Throws MalformedPromptError (never anything
 * else) when the frontmatter is missing, is not valid YAML, or does not match
 * the prompt schema.
 */
export function parsePromptFile(text: string, fallbackName: string): ParsedPromptFile {
  const match = FRONTMATTER.exec(text);
  if (!match) throw new MalformedPromptError('no YAML frontmatter (the file must start with a --- line)');
  let data: unknown;
  try {
    // the alias cap stops "billion laughs" documents from expanding in memory
    const doc = parseDocument(match[1], { prettyErrors: false, uniqueKeys: true });
    if (doc.errors.length) throw new Error(doc.errors[0].message);
    data = doc.toJS({ maxAliasCount: 50 });
  } catch (e) {
    throw new MalformedPromptError(`invalid YAML frontmatter: ${(e as Error).message.split('\n')[0]}`);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new MalformedPromptError('frontmatter must be a YAML mapping');
  }
  const parsed = frontmatterSchema.safeParse(data);
  if (!parsed.success) throw new MalformedPromptError(`invalid frontmatter: ${issueText(parsed.error)}`);
  const fm = parsed.data;
  const seen = new Set<string>();
  for (const a of fm.arguments) {
    if (seen.has(a.name)) throw new MalformedPromptError(`invalid frontmatter: argument ${a.name} is declared twice`);
    seen.add(a.name);
  }
  const name = fm.name ?? fallbackName;
  if (!PROMPT_NAME.test(name)) {
    throw new MalformedPromptError(`no usable name: set "name" in the frontmatter (${JSON.stringify(fallbackName)} is not a valid name)`);
  }
  return {
    name,
    description: fm.description,
    arguments: fm.arguments.map((a) => ({ name: a.name, description: a.description, required: a.required })),
    body: text.slice(match[0].length).replace(/^(\r?\n)+/, ''),
  };
}
