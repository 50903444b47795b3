import { ROLES, rolesUpTo, type Role } from './caller.js';

/**
 * Which groups and users hold which role (`SVC_ROLES`, e.g.
 * `admin=platform-admins;operator=sre,oncall,user:ci;viewer=*`). A name is a
 * group; a user is named only as `user:<username>` (the username as svc shows
 * it: `ci`, `oidc:alice@example.com`), so a token whose username equals a
 * group's name never gets that group's role. `*` is any authenticated
 * caller. Roles are cumulative: holding `admin` grants `operator` and
 * `viewer` too.
 */
export type RoleMapping = ReadonlyMap<Role, ReadonlySet<string>>;

export const EMPTY_ROLE_MAPPING: RoleMapping = new Map();

/** How `SVC_ROLES` names a user rather than a group. */
const USER = 'user:';

/** Parses `role=name,name;role=name`; throws an Error whose message says what is wrong (the config loader names the variable). */
export function parseRoleMapping(text: string): RoleMapping {
  const mapping = new Map<Role, Set<string>>();
  for (const part of text.split(';')) {
    const entry = part.trim();
    if (!entry) continue;
    const eq = entry.indexOf('=');
    if (eq < 1) throw new Error(`"${entry}" is not role=group,group`);
    const role = entry.slice(0, eq).trim();
    if (!(ROLES as readonly string[]).includes(role)) throw new Error(`"${role}" is not a role (one of ${ROLES.join(', ')})`);
    const names = entry
      .slice(eq + 1)
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean);
    if (names.length === 0) throw new Error(`role ${role} names no group or user`);
    const blank = names.find((n) => n.startsWith(USER) && n.length === USER.length);
    if (blank !== undefined) throw new Error(`role ${role} names "user:" without a username`);
    const set = mapping.get(role as Role) ?? new Set<string>();
    for (const n of names) set.add(n);
    mapping.set(role as Role, set);
  }
  return mapping;
}

/**
 * Every role the caller holds, lowest first: the roles `granted` outright (a
 * tokens-file line) plus those the mapping gives `user:<username>` or any of
 * their groups, each with the roles below it.
 */
export function rolesFor(mapping: RoleMapping, username: string, groups: readonly string[], granted: readonly Role[] = []): readonly Role[] {
  let top = -1;
  for (const role of granted) top = Math.max(top, ROLES.indexOf(role));
  for (const [role, names] of mapping) {
    const rank = ROLES.indexOf(role);
    if (rank <= top) continue;
    // a group spelled `user:x` matches nothing: it would borrow user x's role
    if (names.has('*') || names.has(`${USER}${username}`) || groups.some((g) => !g.startsWith(USER) && names.has(g))) top = rank;
  }
  return top < 0 ? [] : rolesUpTo(ROLES[top]);
}
