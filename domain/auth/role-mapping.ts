import { ROLES, rolesUpTo, type Role } from './caller.js';

/**
 * Which groups and usernames hold which role (`SVC_ROLES`, e.g.
 * `admin=platform-admins;operator=sre,oncall;viewer=*`). `*` is any
 * authenticated caller. Roles are cumulative: holding `admin` grants
 * `operator` and `viewer` too.
 */
export type RoleMapping = ReadonlyMap<Role, ReadonlySet<string>>;

export const EMPTY_ROLE_MAPPING: RoleMapping = new Map();

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
    const set = mapping.get(role as Role) ?? new Set<string>();
    for (const n of names) set.add(n);
    mapping.set(role as Role, set);
  }
  return mapping;
}

/**
 * Every role the caller holds, lowest first: the roles `granted` outright (a
 * tokens-file line) plus those the mapping gives their username or any of
 * their groups, each with the roles below it.
 */
export function rolesFor(mapping: RoleMapping, username: string, groups: readonly string[], granted: readonly Role[] = []): readonly Role[] {
  let top = -1;
  for (const role of granted) top = Math.max(top, ROLES.indexOf(role));
  for (const [role, names] of mapping) {
    const rank = ROLES.indexOf(role);
    if (rank <= top) continue;
    if (names.has('*') || names.has(username) || groups.some((g) => names.has(g))) top = rank;
  }
  return top < 0 ? [] : rolesUpTo(ROLES[top]);
}
