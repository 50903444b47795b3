import { identityId, SVC_ISSUER } from './caller.js';

/** One person of the people file (SVC_PEOPLE_FILE) and the identities that are theirs. */
export interface Person {
  /** How svc names the person (records, refusals). */
  readonly name: string;
  /** Names of lines of the tokens file (SVC_AUTH_TOKENS_FILE). */
  readonly tokens: readonly string[];
  /** OIDC identities: the token's `iss` and `sub`. */
  readonly oidc: readonly { readonly issuer: string; readonly subject: string }[];
  /** Addresses an OIDC token names in `email` with `email_verified: true`. */
  readonly emails: readonly string[];
}

/** An address as svc compares it: ASCII letters folded, nothing else changed (a look-alike address is another address). */
export const emailKey = (email: string): string => email.replace(/[A-Z]+/g, (s) => s.toLowerCase());

/**
 * Who is who: which person each identity of the people file belongs to. A
 * caller is an identity (kind, issuer, subject); with a people file, the
 * second-approver rule, revert and session ownership compare the persons of
 * two identities where the file names them, and the identities otherwise.
 * An address counts only as the OIDC token verified it (`email_verified`):
 * whoever registers alice@example.com at the identity provider without
 * proving it is not alice.
 */
export class PeopleDirectory {
  // private fields: configSecrets walks the config by key name, and a `tokens` list of names is no credential
  readonly #byId = new Map<string, string>();
  readonly #byEmail = new Map<string, string>();
  readonly #count: number;

  constructor(people: readonly Person[] = []) {
    for (const p of people) {
      for (const t of p.tokens) this.#byId.set(identityId('tokens-file', SVC_ISSUER, t), p.name);
      for (const o of p.oidc) this.#byId.set(identityId('oidc', o.issuer, o.subject), p.name);
      for (const e of p.emails) this.#byEmail.set(emailKey(e), p.name);
    }
    this.#count = people.length;
  }

  /** How many people the file names (0: no people file). */
  get size(): number {
    return this.#count;
  }

  /** The person an identity id belongs to (a tokens-file name, an OIDC issuer and subject), or undefined. */
  personOfId(id: string | undefined): string | undefined {
    return id === undefined ? undefined : this.#byId.get(id);
  }

  /**
   * The person of an OIDC caller: by issuer and subject first (the file
   * names that identity), else by the address the token verified.
   */
  personOfOidc(id: string, verifiedEmail: string | undefined): string | undefined {
    return this.#byId.get(id) ?? (verifiedEmail === undefined ? undefined : this.#byEmail.get(emailKey(verifiedEmail)));
  }
}

/** No people file: every identity is its own person. */
export const NO_PEOPLE = new PeopleDirectory();
