import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CloneOutcome, CloneRequest, GitFetcher } from '../../domain/ports/git-fetcher.js';

/**
 * A git "remote" that writes its current files into the clone folder, so the
 * real workspace and tree reader see them; change `files` to publish new
 * content, the next clone (a refresh, an expired cache) picks it up.
 */
export class WritingGitFetcher implements GitFetcher {
  clones = 0;
  constructor(public files: Record<string, string>) {}

  async clone(request: CloneRequest): Promise<CloneOutcome> {
    this.clones++;
    await mkdir(request.dir, { recursive: true });
    for (const [rel, text] of Object.entries(this.files)) {
      const full = path.join(request.dir, rel);
      await mkdir(path.dirname(full), { recursive: true });
      await writeFile(full, text);
    }
    return 'cloned';
  }
}

/** A prompt file: front matter with optional arguments, then the body. */
export function promptFile(name: string, description: string, body: string, args: { name: string; required: boolean }[] = []): string {
  const declared = args.length
    ? `arguments:\n${args.map((a) => `  - name: ${a.name}\n    description: The ${a.name}\n    required: ${a.required}\n`).join('')}`
    : '';
  return `---\nname: ${name}\ndescription: ${description}\n${declared}---\n${body}\n`;
}
