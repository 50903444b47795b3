import { identityId, ROLES, SVC_ISSUER, type Caller, type Role } from '../../domain/auth/caller.js';
import { TOKENS_FILE_NAME } from '../../domain/auth/people-document.js';
import { NO_PEOPLE, type PeopleDirectory } from '../../domain/auth/people.js';
import { isReservedName } from '../../domain/auth/person.js';
import { rolesFor, type RoleMapping } from '../../domain/auth/role-mapping.js';

/** A malformed tokens file; the message names the line. */
export class TokensFileError extends Error {}

const DIGEST = /^[0-9a-fA-F]{64}$/;
const RESERVED_NAMES = new Set(['admin', 'anonymous']);
/** Printable ASCII but `,`: a group must be sendable as an Impersonate-Group header (SVC_KUBE_IMPERSONATE). */
const GROUP = /^[\x21-\x2b\x2d-\x7e]{1,256}$/;

/** What a tokens file gives: the callers of the lines that parse, and what is wrong with the others. */
export interface TokensFileReading {
  callers: Map<string, Caller>;
  /** One entry per line left out, naming it; empty for a good file. */
  problems: string[];
}

/**
 * Reads a tokens file: one `name role sha256-hex [group,group]` per line,
 * `#` starts a comment. The token itself never stands in the file, only the
 * hex SHA-256 of it (`printf %s "$TOKEN" | sha256sum`). Returns the callers
 * by lowercase digest; a malformed line, a repeated name or digest throws
 * naming the line number (start-up stops).
 */
export function parseTokensFile(text: string, roles: RoleMapping, people: PeopleDirectory = NO_PEOPLE): Map<string, Caller> {
  const { callers, problems } = readTokensFile(text, roles, people);
  if (problems.length) throw new TokensFileError(problems[0]);
  return callers;
}

/**
 * The lenient reading a re-read uses: every line that parses, none that
 * does not. A line that no longer parses (and both lines of a repeated name
 * or digest) is left out, so a broken edit fails closed for the tokens it
 * touches and the others keep working.
 */
export function readTokensFile(text: string, roles: RoleMapping, people: PeopleDirectory = NO_PEOPLE): TokensFileReading {
  const problems: string[] = [];
  const lines: { line: number; name: string; digest: string; caller: Caller }[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    try {
      const parsed = parseLine(raw, i + 1, roles, people);
      if (parsed) lines.push({ line: i + 1, ...parsed });
    } catch (err) {
      problems.push((err as Error).message);
    }
  });
  const count = (key: (l: (typeof lines)[number]) => string) => {
    const n = new Map<string, number>();
    for (const l of lines) n.set(key(l), (n.get(key(l)) ?? 0) + 1);
    return n;
  };
  const names = count((l) => l.name);
  const digests = count((l) => l.digest);
  const callers = new Map<string, Caller>();
  const seen = new Set<string>();
  for (const l of lines) {
    // every line of a repeated name or digest is left out; the repeats are named
    const again = (key: string) => seen.has(key) || !seen.add(key);
    const name = again(`n:${l.name}`);
    const digest = again(`d:${l.digest}`);
    if (names.get(l.name)! > 1 || digests.get(l.digest)! > 1) {
      if (name) problems.push(`line ${l.line}: the name ${l.name} is used twice${EXPECTED}`);
      else if (digest) problems.push(`line ${l.line}: the same token digest is used twice${EXPECTED}`);
    } else callers.set(l.digest, l.caller);
  }
  problems.sort((a, b) => lineOf(a) - lineOf(b));
  return { callers, problems };
}

const EXPECTED = ' (expected: name role sha256-hex [group,group])';
const lineOf = (problem: string) => Number(/^line (\d+)/.exec(problem)?.[1] ?? 0);

/** One line: undefined for a blank or comment line; throws naming the line when it is malformed. */
function parseLine(raw: string, n: number, roles: RoleMapping, people: PeopleDirectory): { name: string; digest: string; caller: Caller } | undefined {
  const line = raw.replace(/#.*$/, '').trim();
  if (!line) return undefined;
  const fail = (why: string): never => {
    throw new TokensFileError(`line ${n}: ${why}${EXPECTED}`);
  };
  const cols = line.split(/\s+/);
  if (cols.length < 3 || cols.length > 4) fail(`${cols.length} columns`);
  const [name, role, digest, groupList] = cols;
  if (!TOKENS_FILE_NAME.test(name)) fail('the name must be 1-64 letters, digits, ., _, @ or -');
  // `admin` is SVC_AUTH_TOKEN's caller and `anonymous` the unauthenticated one: a line may not take either name (nor a Kubernetes system: one)
  if (RESERVED_NAMES.has(name.toLowerCase()) || isReservedName(name))
    fail(`the name ${name} is reserved (admin, anonymous and system:* are not tokens-file names)`);
  if (!(ROLES as readonly string[]).includes(role)) fail(`"${role}" is not a role (${ROLES.join(', ')})`);
  if (!DIGEST.test(digest)) fail('the third column must be the 64 hex digits of the SHA-256 of the token');
  const groups = groupList === undefined ? [] : groupList.split(',');
  if (groups.length > 100 || !groups.every((g) => GROUP.test(g))) fail('groups must be at most 100 comma-separated names of printable ASCII without spaces');
  const reserved = groups.find(isReservedName);
  if (reserved !== undefined) fail(`the group ${reserved} is reserved by Kubernetes (system:)`);
  const id = identityId('tokens-file', SVC_ISSUER, name);
  const person = people.personOfId(id);
  const caller: Caller = Object.freeze({
    id,
    username: name,
    groups: Object.freeze(groups),
    roles: rolesFor(roles, name, groups, [role as Role]),
    kind: 'tokens-file' as const,
    ...(person !== undefined ? { person } : {}),
  });
  return { name, digest: digest.toLowerCase(), caller };
}
