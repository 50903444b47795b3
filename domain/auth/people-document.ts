import { normalisedUsername } from './person.js';
import { emailKey, type Person } from './people.js';

/** A tokens-file name (the first column of SVC_AUTH_TOKENS_FILE). */
export const TOKENS_FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
/** How a person is named: a word or a few, printable ASCII. */
const PERSON_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._@ -]{0,62}[A-Za-z0-9._@-])?$/;
/** An address as an identity provider verifies it: ASCII only (a look-alike in another script is not alice's). */
const EMAIL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const CONTROL_OR_BLANK_ENDS = /\p{Cc}|^\s|\s$/u;
export const MAX_PEOPLE = 10_000;
export const MAX_IDENTITIES_PER_PERSON = 100;
const KEYS = new Set(['name', 'tokens', 'oidc', 'emails']);

/**
 * The people of a people file, parsed from its YAML or JSON document:
 * `people:` a list of `{name, tokens, oidc: [{issuer, subject}], emails}`.
 * Throws an Error naming the entry (`entry 2 (alice): ...`) for anything
 * else: an unknown key (a typo must not leave an identity unlinked), a
 * malformed name or address, a person with no identity, an identity or an
 * address listed for two people, an OIDC issuer that is not SVC_OIDC_ISSUER
 * (its tokens are never accepted, so the entry would link nothing).
 */
export function peopleFromDocument(doc: unknown, oidcIssuer: string | undefined): Person[] {
  const list = (doc as { people?: unknown } | null)?.people;
  if (!doc || typeof doc !== 'object' || Array.isArray(doc) || Object.keys(doc).some((k) => k !== 'people') || !Array.isArray(list))
    throw new Error('must be a document with one key, people: a list of {name, tokens, oidc, emails}');
  if (list.length > MAX_PEOPLE) throw new Error(`lists ${list.length} people; at most ${MAX_PEOPLE}`);
  const owners = new Map<string, string>();
  const names = new Map<string, string>();
  return list.map((raw, i) => {
    const at = `entry ${i + 1}${raw && typeof raw === 'object' && typeof (raw as Person).name === 'string' ? ` (${(raw as Person).name.slice(0, 64)})` : ''}`;
    const fail = (why: string): never => {
      throw new Error(`${at}: ${why}`);
    };
    const person = personOf(raw, fail, oidcIssuer);
    const seen = names.get(normalisedUsername(person.name));
    if (seen !== undefined) fail(`the name ${person.name} is already ${seen}'s (names are compared as people read them)`);
    names.set(normalisedUsername(person.name), person.name);
    const claims = [
      ...person.tokens.map((t) => [`t:${t}`, `the tokens-file name ${t}`]),
      ...person.oidc.map((o) => [`o:${o.issuer} ${o.subject}`, `the OIDC subject ${o.subject}`]),
      ...person.emails.map((e) => [`e:${emailKey(e)}`, `the address ${e}`]),
    ];
    for (const [key, what] of claims) {
      const other = owners.get(key);
      if (other !== undefined) fail(`${what} is listed ${other === person.name ? 'twice' : `for ${other} too`}: an identity is one person's`);
      owners.set(key, person.name);
    }
    return person;
  });
}

function personOf(raw: unknown, fail: (why: string) => never, oidcIssuer: string | undefined): Person {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return fail('must be a mapping with name, tokens, oidc, emails');
  const entry = raw as Record<string, unknown>;
  const unknown = Object.keys(entry).find((k) => !KEYS.has(k));
  if (unknown !== undefined) fail(`unknown key ${JSON.stringify(unknown.slice(0, 64))} (keys: name, tokens, oidc, emails)`);
  const { name } = entry;
  if (typeof name !== 'string' || !PERSON_NAME.test(name)) fail('name must be 1-64 letters, digits, spaces, ., _, @ or -');
  const strings = (key: string, pattern: RegExp, what: string): string[] => {
    const v = entry[key] ?? [];
    if (!Array.isArray(v)) return fail(`${key} must be a list`);
    const bad = v.findIndex((s) => typeof s !== 'string' || !pattern.test(s));
    if (bad !== -1) fail(`${key}[${bad}] must be ${what}`);
    return v as string[];
  };
  const tokens = strings('tokens', TOKENS_FILE_NAME, 'a tokens-file name (1-64 letters, digits, ., _, @ or -)');
  const emails = strings('emails', EMAIL, 'an email address of ASCII characters');
  const oidcRaw = entry.oidc ?? [];
  if (!Array.isArray(oidcRaw)) return fail('oidc must be a list of {issuer, subject}');
  const oidc = oidcRaw.map((o: unknown, j) => {
    const { issuer, subject, ...rest } = (o && typeof o === 'object' ? o : {}) as Record<string, unknown>;
    if (Object.keys(rest).length || typeof issuer !== 'string' || issuer.length === 0 || issuer.length > 1024 || typeof subject !== 'string')
      return fail(`oidc[${j}] must be {issuer, subject}, the token's iss and sub`);
    if (subject.length === 0 || subject.length > 256 || CONTROL_OR_BLANK_ENDS.test(subject)) fail(`oidc[${j}].subject must be 1-256 characters`);
    if (oidcIssuer !== undefined && issuer !== oidcIssuer)
      fail(`oidc[${j}].issuer ${JSON.stringify(issuer.slice(0, 200))} is not SVC_OIDC_ISSUER (${oidcIssuer}): tokens of that issuer are never accepted`);
    return { issuer, subject };
  });
  const count = tokens.length + emails.length + oidc.length;
  if (count === 0) fail('names no identity (tokens, oidc or emails)');
  if (count > MAX_IDENTITIES_PER_PERSON) fail(`names ${count} identities; at most ${MAX_IDENTITIES_PER_PERSON}`);
  return { name: name as string, tokens, oidc, emails };
}
