import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { peopleFromDocument } from '../../domain/auth/people-document.js';
import { NO_PEOPLE, PeopleDirectory } from '../../domain/auth/people.js';
import { ConfigError, str, type Env } from './env-parsers.js';

/** A people file is read whole at start: larger ones are refused before they are read (a few thousand people; parsing 256 KiB of YAML takes about a second). */
export const MAX_PEOPLE_FILE_BYTES = 256 * 1024;

/**
 * SVC_PEOPLE_FILE: who is who across credentials (docs/identity.md), YAML
 * or JSON, read and checked once at start: a file that cannot be read, is
 * over 256 KiB, is not YAML or JSON (aliases refused: no expansion bombs), or
 * holds a malformed entry stops start-up with a message naming the file and
 * the entry. Unset: no people, every identity is its own person.
 */
export function parsePeopleFile(env: Env, cwd: string, oidcIssuer: string | undefined): PeopleDirectory {
  const given = str(env, 'SVC_PEOPLE_FILE');
  if (given === undefined) return NO_PEOPLE;
  const file = path.resolve(cwd, given);
  const fail = (why: string) => new ConfigError('SVC_PEOPLE_FILE', `(${file}): ${why}`);
  let text: string;
  try {
    const { size } = statSync(file);
    if (size > MAX_PEOPLE_FILE_BYTES) throw fail(`is ${size} bytes; at most ${MAX_PEOPLE_FILE_BYTES} are read`);
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw fail(`cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let doc: unknown;
  try {
    // the YAML parser loads only when a people file is configured (start-up time)
    const { parse } = require('yaml') as typeof import('yaml');
    doc = parse(text, { maxAliasCount: 0, uniqueKeys: true, prettyErrors: false });
  } catch (err) {
    throw fail(`is not YAML or JSON: ${(err as Error).message.split('\n')[0].slice(0, 200)}`);
  }
  try {
    return new PeopleDirectory(peopleFromDocument(doc, oidcIssuer));
  } catch (err) {
    throw fail((err as Error).message);
  }
}
