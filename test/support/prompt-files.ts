import type { PromptSourceFile } from '../../domain/prompts/prompt.js';

/** Builds an in-memory prompt source from `{path: text}` pairs (mode 0644 unless given). */
export function promptFiles(entries: Record<string, string | { text: string; mode: number }>): PromptSourceFile[] {
  return Object.entries(entries).map(([path, v]) =>
    typeof v === 'string' ? { path, content: Buffer.from(v, 'utf8'), mode: 0o644 } : { path, content: Buffer.from(v.text, 'utf8'), mode: v.mode },
  );
}

/** A prompt markdown file with the given frontmatter lines and body. */
export function promptMarkdown(frontmatter: string, body: string): string {
  return `---\n${frontmatter}\n---\n${body}`;
}
