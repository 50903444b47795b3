import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../infrastructure/project-root.js';

/**
 * What `svc sandbox --list` needs of the scenarios, read without the YAML
 * parser or the scenario schema: parsing all ~160 scenario files costs
 * seconds, and listing them should answer as fast as node starts.
 */

/** The scenarios shipped with svc (`scenarios/` beside package.json). */
export const defaultScenariosDir = () => path.join(projectRoot(), 'scenarios');

/** The scenario names under `root`: folders holding a scenario.yaml, sorted. */
export function scenarioNames(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(root, d.name, 'scenario.yaml')))
    .map((d) => d.name)
    .sort();
}

const TAG = /^[a-z0-9][a-z0-9-]*$/;
const BLOCK_ITEM = /^( +)- +(\S+) *$/;

/**
 * The top-level `tags` of a scenario.yaml, when they are written in one of the
 * two plain forms the scenarios use (`tags: [a, b]`, or one `- a` line per
 * tag); undefined for any other form (quotes, comments, anchors, several
 * documents...), which the caller then reads with the full parser.
 */
export function plainTags(text: string): string[] | undefined {
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  if (lines.some((l, i) => (i > 0 && (l === '---' || l === '...')) || l.startsWith('%') || l.startsWith('{'))) return undefined;
  const at = lines.flatMap((l, i) => (/^tags\s*:/.test(l) ? [i] : []));
  if (at.length !== 1) return undefined;
  const rest = lines[at[0]].replace(/^tags\s*:/, '').trim();
  let tags: string[];
  if (rest.startsWith('[') && rest.endsWith(']')) {
    tags = rest
      .slice(1, -1)
      .split(',')
      .map((t) => t.trim());
  } else if (rest === '') {
    tags = [];
    let indent: string | undefined;
    for (const line of lines.slice(at[0] + 1)) {
      if (line === '' || /^\S/.test(line)) break;
      const item = BLOCK_ITEM.exec(line);
      // every item at one indentation: anything else is not a plain list of words
      if (!item || (indent !== undefined && item[1] !== indent)) return undefined;
      indent = item[1];
      tags.push(item[2]);
    }
  } else return undefined;
  return tags.length > 0 && tags.every((t) => TAG.test(t)) ? tags : undefined;
}

/** The tags of scenario `name` under `root` in their plain form, or undefined (see plainTags). */
export function scenarioTags(root: string, name: string): string[] | undefined {
  return plainTags(readFileSync(path.join(root, name, 'scenario.yaml'), 'utf8'));
}
