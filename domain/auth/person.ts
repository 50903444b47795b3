import { storedIdentityId, type CallerKind } from './caller.js';
import type { PeopleDirectory } from './people.js';

/**
 * Characters that show as nothing (or as a blank) and so let two names look
 * alike: format characters (zero-width space and joiners, bidi controls, the
 * BOM, tags), controls, line and paragraph separators, spaces other than
 * U+0020, and the other default-ignorable code points (variation selectors,
 * the combining grapheme joiner, Hangul fillers, Mongolian selectors).
 */
const INVISIBLE =
  // eslint-disable-next-line no-misleading-character-class -- the combining marks (variation selectors, the grapheme joiner) are what this class looks for
  /[\p{Cf}\p{Cc}\p{Zl}\p{Zp}\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u2800\u3164\ufe00-\ufe0f\uffa0\u{e0100}-\u{e01ef}]/u;

/** Whether a username has a character that shows as nothing: such names are refused at authentication. */
export function hasInvisible(name: string): boolean {
  return INVISIBLE.test(name);
}

// eslint-disable-next-line no-misleading-character-class -- as INVISIBLE
const INVISIBLE_ALL = new RegExp(INVISIBLE.source, 'gu');

/**
 * A username as people read it: NFKC (full-width and compatibility forms
 * folded), invisible characters removed, case-folded (upper then lower, so
 * `ß`, `ſ` and the Kelvin sign fold as people read them), and, for an OIDC
 * caller, without the OIDC prefix (`oidc:`): `Alice`, `alice\u200b` and
 * OIDC `alice` are one person.
 */
export function normalisedUsername(username: string, kind?: CallerKind): string {
  const bare = kind === 'oidc' && username.includes(':') ? username.slice(username.indexOf(':') + 1) : username;
  return bare.normalize('NFKC').replace(INVISIBLE_ALL, '').toUpperCase().toLowerCase().normalize('NFKC');
}

/**
 * Whether a name from a token or a file (a username claim, a group) is one
 * of Kubernetes' own (`system:masters`, `system:serviceaccount:...`) as
 * people and HTTP headers read it: NFKC (a full-width colon is a colon),
 * invisible characters removed, blanks around it trimmed (a header value
 * loses them), case-folded. ` system:masters`, `system：masters` and
 * `system\u200b:masters` all are.
 */
export function isReservedName(name: string): boolean {
  return normalisedUsername(name).trim().startsWith('system:');
}

/** Who did something, as a caller or a stored record names them (records stored before ids have none, before the people file no person). */
export interface PersonRef {
  readonly id?: string;
  readonly username: string;
  readonly kind?: CallerKind;
  /** The people file's person, as recorded (see Caller.person). */
  readonly person?: string;
}

/**
 * Whether two callers may be one person: the same person where the people
 * file names both (as recorded, or for a record made before the file named
 * it, as the file names its identity now), the same identity id, or the
 * same normalised username (whatever kind of token each holds). The one
 * comparison the second-approver rule uses: a different person is another
 * person by the file, another identity AND another name.
 */
export function samePerson(a: PersonRef, b: PersonRef, people?: PeopleDirectory): boolean {
  const pa = a.person ?? people?.personOfId(storedIdentityId(a));
  const pb = b.person ?? people?.personOfId(storedIdentityId(b));
  if (pa !== undefined && pa === pb) return true;
  return storedIdentityId(a) === storedIdentityId(b) || normalisedUsername(a.username, a.kind) === normalisedUsername(b.username, b.kind);
}
