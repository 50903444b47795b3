import type { z } from 'zod';
import { issueLines } from '../validation/zod-issues.js';

/** Longest model answer a tool will read; anything longer is refused, not parsed. */
export const MAX_ANSWER_CHARS = 100_000;
const EXCERPT_CHARS = 200;
const MAX_ISSUES = 10;

export type StructuredParse<T> = { ok: true; value: T } | { ok: false; problem: string };

/**
 * A model's answer is untrusted input: bounded, parsed as JSON (a fenced
 * ```json block or the outermost {...} is accepted, as models add prose),
 * then checked against `schema`. `problem` says what was wrong in words the
 * model can act on when asked again; it never quotes more than an excerpt.
 */
export function parseStructuredAnswer<T>(text: string, schema: z.ZodType<T>, maxChars = MAX_ANSWER_CHARS): StructuredParse<T> {
  if (text.length > maxChars) return { ok: false, problem: `the answer is ${text.length} characters long, more than the ${maxChars} allowed` };
  const candidate = jsonCandidate(text);
  if (candidate === undefined) return { ok: false, problem: 'the answer contains no JSON object' };
  let value: unknown;
  try {
    value = JSON.parse(candidate);
  } catch (e) {
    return { ok: false, problem: `the answer is not valid JSON (${(e as Error).message.slice(0, 120)})` };
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issues = issueLines(parsed.error).slice(0, MAX_ISSUES);
  const more = parsed.error.issues.length > MAX_ISSUES ? ` (and ${parsed.error.issues.length - MAX_ISSUES} more)` : '';
  return { ok: false, problem: `the JSON does not fit the required schema: ${issues.join('; ')}${more}` };
}

function jsonCandidate(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) return trimmed;
  const fenced = /```(?:json)?\s*\n([\s\S]*?)\n?```/.exec(trimmed);
  if (fenced && fenced[1].trim().startsWith('{')) return fenced[1].trim();
  const start = trimmed.indexOf('{');
  const end = trimmed.lastIndexOf('}');
  return start >= 0 && end > start ? trimmed.slice(start, end + 1) : undefined;
}

/** The first characters of a model's answer, on one line, for an error message. */
export function answerExcerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= EXCERPT_CHARS ? flat : `${flat.slice(0, EXCERPT_CHARS)}…`;
}
