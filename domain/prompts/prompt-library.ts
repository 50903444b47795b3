import { MalformedPromptError, parsePromptFile } from './prompt-frontmatter.js';
import type { Prompt, PromptLoadWarning, PromptSourceFile, PromptSummary } from './prompt.js';

const SKILL_FILE = 'SKILL.md';

function dirname(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/**
 * The prompts of one source, by name. Layout of a source:
 * - `SKILL.md` at the root: the whole source is one skill;
 * - otherwise every top-level `*.md` (except README.md) is a prompt, and every
 *   folder holding a `SKILL.md` is a skill whose other files ride along in
 *   `files[]` (the outermost such folder wins; a nested SKILL.md is just a file).
 * Files that do not parse are skipped and reported in `warnings`.
 */
export class PromptLibrary {
  private readonly byName = new Map<string, Prompt>();

  private constructor(
    prompts: Prompt[],
    readonly warnings: PromptLoadWarning[],
  ) {
    for (const p of prompts) this.byName.set(p.name, p);
  }

  static empty(): PromptLibrary {
    return new PromptLibrary([], []);
  }

  /** `rootName` names a root-level skill whose frontmatter has no name. */
  static fromFiles(files: readonly PromptSourceFile[], rootName = 'skill'): PromptLibrary {
    const warnings: PromptLoadWarning[] = [];
    const candidates: Prompt[] = [];
    const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const skillDirs = findSkillDirs(sorted);

    for (const dir of skillDirs) {
      const skillPath = dir === '' ? SKILL_FILE : `${dir}/${SKILL_FILE}`;
      const skillFile = sorted.find((f) => f.path === skillPath)!;
      const prefix = dir === '' ? '' : `${dir}/`;
      const extra = sorted
        .filter((f) => f.path !== skillPath && f.path.startsWith(prefix))
        .map((f) => ({ path: f.path.slice(prefix.length), content: f.content, mode: f.mode }));
      const prompt = parseOne(skillFile, dir === '' ? rootName : basename(dir), extra, warnings);
      if (prompt) candidates.push(prompt);
    }
    if (!skillDirs.includes('')) {
      for (const f of sorted) {
        if (f.path.includes('/') || !f.path.toLowerCase().endsWith('.md')) continue;
        if (f.path.toLowerCase() === 'readme.md') continue;
        const prompt = parseOne(f, f.path.slice(0, -3), [], warnings);
        if (prompt) candidates.push(prompt);
      }
    }

    const kept: Prompt[] = [];
    const names = new Set<string>();
    for (const p of candidates) {
      if (names.has(p.name)) {
        warnings.push({ path: p.sourcePath, reason: `duplicate prompt name ${p.name}; the first one loaded is kept` });
        continue;
      }
      names.add(p.name);
      kept.push(p);
    }
    return new PromptLibrary(kept, warnings);
  }

  get size(): number {
    return this.byName.size;
  }

  get(name: string): Prompt | undefined {
    return this.byName.get(name);
  }

  /** Summaries sorted by name; `arguments` only when the prompt declares some. */
  list(): PromptSummary[] {
    return [...this.byName.values()]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((p) => ({
        name: p.name,
        description: p.description,
        ...(p.arguments.length ? { arguments: p.arguments.map((a) => ({ ...a })) } : {}),
      }));
  }
}

/** Folders holding a SKILL.md, outermost only ('' is the root). */
function findSkillDirs(sorted: readonly PromptSourceFile[]): string[] {
  const dirs = sorted.filter((f) => basename(f.path) === SKILL_FILE).map((f) => dirname(f.path));
  const outermost = dirs.filter((d) => !dirs.some((o) => o !== d && (o === '' || d.startsWith(`${o}/`))));
  return [...new Set(outermost)];
}

function parseOne(file: PromptSourceFile, fallbackName: string, files: PromptSourceFile[], warnings: PromptLoadWarning[]): Prompt | undefined {
  try {
    const parsed = parsePromptFile(file.content.toString('utf8'), fallbackName);
    return { ...parsed, sourcePath: file.path, files };
  } catch (e) {
    if (!(e instanceof MalformedPromptError)) throw e;
    warnings.push({ path: file.path, reason: e.message });
    return undefined;
  }
}
