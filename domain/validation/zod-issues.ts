import type { z } from 'zod';

/** One line per zod issue, `path: message` (`(root)` for the value itself), for messages a person or a model reads. */
export function issueLines(error: z.ZodError): string[] {
  return error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`);
}
