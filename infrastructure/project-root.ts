import { existsSync } from 'node:fs';
import path from 'node:path';

let cached: string | undefined;

/** The folder holding package.json, whether running from sources or from dist/. */
export function projectRoot(): string {
  if (cached) return cached;
  let dir = __dirname;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('package.json not found above ' + __dirname);
    dir = parent;
  }
  cached = dir;
  return dir;
}
