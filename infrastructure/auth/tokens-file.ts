import { ROLES, type Caller, type Role } from '../../domain/auth/caller.js';
import { rolesFor, type RoleMapping } from '../../domain/auth/role-mapping.js';

/** A malformed tokens file; the message names the line. */
export class TokensFileError extends Error {}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
const DIGEST = /^[0-9a-fA-F]{64}$/;
/** Printable ASCII but `,`: a group must be sendable as an Impersonate-Group header (SVC_KUBE_IMPERSONATE). */
const GROUP = /^[\x21-\x2b\x2d-\x7e]{1,256}$/;

/**
 * Reads a tokens file: one `name role sha256-hex [group,group]` per line,
 * `#` starts a comment. The token itself never stands in the file, only the
 * hex SHA-256 of it (`printf %s "$TOKEN" | sha256sum`). Returns the callers
 * by lowercase digest; a malformed line, a repeated name or digest throws
 * naming the line number.
 */
export function parseTokensFile(text: string, roles: RoleMapping): Map<string, Caller> {
  const callers = new Map<string, Caller>();
  const names = new Set<string>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/#.*$/, '').trim();
    if (!line) return;
    const fail = (why: string): never => {
      throw new TokensFileError(`line ${i + 1}: ${why} (expected: name role sha256-hex [group,group])`);
    };
    const cols = line.split(/\s+/);
    if (cols.length < 3 || cols.length > 4) fail(`${cols.length} columns`);
    const [name, role, digest, groupList] = cols;
    if (!NAME.test(name)) fail('the name must be 1-64 letters, digits, ., _, @ or -');
    if (!(ROLES as readonly string[]).includes(role)) fail(`"${role}" is not a role (${ROLES.join(', ')})`);
    if (!DIGEST.test(digest)) fail('the third column must be the 64 hex digits of the SHA-256 of the token');
    const groups = groupList === undefined ? [] : groupList.split(',');
    if (groups.length > 100 || !groups.every((g) => GROUP.test(g))) fail('groups must be at most 100 comma-separated names of printable ASCII without spaces');
    if (names.has(name)) fail(`the name ${name} is used twice`);
    const key = digest.toLowerCase();
    if (callers.has(key)) fail('the same token digest is used twice');
    names.add(name);
    callers.set(
      key,
      Object.freeze({
        username: name,
        groups: Object.freeze(groups),
        roles: rolesFor(roles, name, groups, [role as Role]),
        kind: 'tokens-file' as const,
      }),
    );
  });
  return callers;
}
