/**
 * The prompt library model. A prompt is a markdown file with YAML frontmatter;
 * a skill is a folder holding `SKILL.md` plus any other files, which travel with
 * the rendered prompt. Sources (built-in folder, cloned repo, uploaded manifest)
 * all reduce to a set of `PromptSourceFile`s, so one loader and one renderer
 * serve them all.
 */

/** One file of a prompt source, relative to the source's root. */
export interface PromptSourceFile {
  /** POSIX-style relative path (`skills/deploy/SKILL.md`), never absolute, no `..` segment. */
  path: string;
  content: Buffer;
  /** Permission bits (already masked to 0o777). */
  mode: number;
}

/** An argument a prompt declares in its frontmatter. */
export interface PromptArgument {
  name: string;
  description: string;
  required: boolean;
}

/** A parsed prompt or skill, ready to render. */
export interface Prompt {
  name: string;
  description: string;
  arguments: PromptArgument[];
  /** Markdown after the frontmatter, with `{{arg}}` placeholders. */
  body: string;
  /** Where it came from inside the source (for warnings and debugging). */
  sourcePath: string;
  /** Files of a skill folder other than `SKILL.md`, paths relative to the folder; empty for a plain prompt. */
  files: PromptSourceFile[];
}

/** The metadata the list endpoint returns for each prompt. */
export interface PromptSummary {
  name: string;
  description: string;
  /** Present only when the prompt declares arguments. */
  arguments?: PromptArgument[];
}

export interface PromptMessage {
  role: 'user' | 'assistant';
  content: { type: 'text'; text: string };
}

/** A skill file in a rendered prompt: content base64, mode as an octal string such as `0644`. */
export interface RenderedFile {
  path: string;
  content: string;
  mode: string;
}

export interface RenderedPrompt {
  description: string;
  messages: PromptMessage[];
  /** Present for skills that carry files. */
  files?: RenderedFile[];
}

/** A prompt file that could not be loaded; the loader skips it and reports why. */
export interface PromptLoadWarning {
  path: string;
  reason: string;
}
