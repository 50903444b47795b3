import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';
import type { ChainAnchor } from './hash-chain.js';

/**
 * What a ledger seals with and checks against: `SVC_LEDGER_KEY`, the key
 * before a rotation (`SVC_LEDGER_KEY_PREVIOUS`: what was sealed before the
 * rotation still verifies), and a head an operator accepted as it is
 * (`SVC_LEDGER_ACCEPT_HEAD`, after comparing it with a copy kept elsewhere).
 */
export interface LedgerKeys {
  key?: string;
  previousKey?: string;
  acceptHead?: ChainAnchor;
}

/** Which key a seal (or a keyed entry's HMAC) verifies under: `none` when it carries no seal, `wrong` when no key makes it. */
export type SealVerdict = 'key' | 'previous-key' | 'none' | 'wrong';

/** What svc found wrong with a head it read before appending after it. */
export type HeadFlawKind = 'missing' | 'unsealed' | 'wrong-seal' | 'previous-key';

/**
 * A head svc found not sealed as it seals heads, and appended after anyway
 * (refusing would stop every write): kept inside every later head, under its
 * seal, so the newest entries that head may have hidden stay reported after
 * the next append. `at` is when svc found it (absent on one found by a walk).
 */
export interface HeadFlaw extends ChainAnchor {
  found: HeadFlawKind;
  at?: string;
}

/** The head as stored: the last entry appended, its seal (HMAC under the key), and a flaw carried from before. */
export interface StoredHead extends ChainAnchor {
  mac?: string;
  flaw?: HeadFlaw;
}

/** The anchor as stored (where the chain starts after retention), and its seal. */
export interface StoredAnchor extends ChainAnchor {
  mac?: string;
}

const HEX64 = /^[0-9a-f]{64}$/;
const FLAW_KINDS: readonly HeadFlawKind[] = ['missing', 'unsealed', 'wrong-seal', 'previous-key'];

// a head and an anchor are sealed over different text, so neither seal (nor an entry's hash) stands for another
function mac(key: string, what: 'head' | 'anchor', fields: object): string {
  return createHmac('sha256', key)
    .update(canonicalJson({ seal: `svc-ledger-${what}`, ...fields }))
    .digest('hex');
}

const headFields = (h: StoredHead) => ({ seq: h.seq, hash: h.hash, ...(h.flaw ? { flaw: h.flaw } : {}) });

/** The head as svc writes it: its fields, and with a key their HMAC. */
export function sealHead(head: ChainAnchor & { flaw?: HeadFlaw }, key?: string): StoredHead {
  const fields = headFields(head);
  return key === undefined ? fields : { ...fields, mac: mac(key, 'head', fields) };
}

/** The anchor as retention writes it: its position and hash, and with a key their HMAC. */
export function sealAnchor(anchor: ChainAnchor, key?: string): StoredAnchor {
  const fields = { seq: anchor.seq, hash: anchor.hash };
  return key === undefined ? fields : { ...fields, mac: mac(key, 'anchor', fields) };
}

/** Which key the head's seal verifies under. */
export const headSealedWith = (head: StoredHead, keys: LedgerKeys): SealVerdict => sealVerdict('head', head, keys);

function sealVerdict(what: 'head' | 'anchor', stored: StoredHead, keys: LedgerKeys): SealVerdict {
  if (stored.mac === undefined) return 'none';
  const given = Buffer.from(stored.mac, 'utf8');
  const fields = what === 'head' ? headFields(stored) : { seq: stored.seq, hash: stored.hash };
  const made = (key: string | undefined) => key !== undefined && timingSafeEqualText(mac(key, what, fields), given);
  return made(keys.key) ? 'key' : made(keys.previousKey) ? 'previous-key' : 'wrong';
}

function timingSafeEqualText(expected: string, given: Buffer): boolean {
  const e = Buffer.from(expected, 'utf8');
  return e.length === given.length && timingSafeEqual(e, given);
}

const accepted = (keys: LedgerKeys, at: ChainAnchor) => keys.acceptHead?.seq === at.seq && keys.acceptHead.hash === at.hash;

/** A flaw found at `at`, unless the operator accepted that head (SVC_LEDGER_ACCEPT_HEAD). */
export function headFlaw(at: ChainAnchor, found: HeadFlawKind, keys: LedgerKeys, atMs?: number): HeadFlaw | undefined {
  if (keys.key === undefined || accepted(keys, at)) return undefined;
  return { seq: at.seq, hash: at.hash, found, ...(atMs !== undefined ? { at: new Date(atMs).toISOString() } : {}) };
}

/**
 * What is wrong with a stored head, with a key: nothing (undefined) for a
 * head sealed with the key, or with the previous key while the entry at its
 * position is not sealed with the current one (a rotation with no append
 * since); otherwise the flaw it shows (no seal, a wrong one, the previous
 * key's after the rotation), or the flaw it carries from before. An empty
 * ledger's head needs no seal; without a key nothing is checked.
 * `entryAtHead`: how the entry at the head's position is sealed, when known.
 */
export function flawOfHead(head: StoredHead, keys: LedgerKeys, entryAtHead?: SealVerdict, atMs?: number): HeadFlaw | undefined {
  if (keys.key === undefined || head.seq === 0) return undefined;
  const verdict = sealVerdict('head', head, keys);
  if (verdict === 'key' || (verdict === 'previous-key' && entryAtHead !== 'key')) return head.flaw && !accepted(keys, head.flaw) ? head.flaw : undefined;
  const found = verdict === 'none' ? 'unsealed' : verdict === 'wrong' ? 'wrong-seal' : 'previous-key';
  return headFlaw(head, found, keys, atMs);
}

/** Why the stored anchor cannot be trusted with a key (no seal, or one no key makes), or undefined. */
export function anchorProblem(anchor: StoredAnchor, keys: LedgerKeys): string | undefined {
  if (keys.key === undefined || anchor.seq === 0) return undefined;
  const verdict = sealVerdict('anchor', anchor, keys);
  if (verdict === 'key' || verdict === 'previous-key') return undefined;
  return `the anchor (position ${anchor.seq}, where the chain starts after retention) ${verdict === 'none' ? 'carries no seal' : 'has a seal that SVC_LEDGER_KEY does not make'}: it was rewritten without the key, so the oldest entries may have been removed with it`;
}

const FOUND: Record<HeadFlawKind, string> = {
  missing: 'missing or unreadable (svc took the head from the chain)',
  unsealed:
    'carrying no seal (written without SVC_LEDGER_KEY: by someone who can write the store, or before the key was set, or by an svc before heads were sealed)',
  'wrong-seal': 'carrying a seal that SVC_LEDGER_KEY does not make (rewritten without the key)',
  'previous-key': 'sealed with SVC_LEDGER_KEY_PREVIOUS although its entry is sealed with SVC_LEDGER_KEY (rewritten by someone holding only the previous key)',
};

/** The integrity problem a flaw stands for, naming the head, what was wrong with it, and how an operator accepts it. */
export function headFlawProblem(flaw: HeadFlaw): string {
  const when = flaw.at ? `svc found the head at position ${flaw.seq} on ${flaw.at}` : `the head svc keeps is at position ${flaw.seq},`;
  return (
    `${when} ${FOUND[flaw.found]}: entries after position ${flaw.seq} may have been removed${flaw.at ? ' then' : ''}. ` +
    `If a head kept elsewhere shows position ${flaw.seq} with hash ${flaw.hash}, nothing was removed: SVC_LEDGER_ACCEPT_HEAD=${flaw.seq}:${flaw.hash} accepts it`
  );
}

/** A stored head read back (file content, Redis fields): its shape checked; a malformed seal or flaw is dropped (the head then shows as unsealed). */
export function storedHeadOf(value: { seq: unknown; hash: unknown; mac?: unknown; flaw?: unknown }): StoredHead | undefined {
  const { seq, hash } = value;
  if (!Number.isSafeInteger(seq) || (seq as number) < 0 || typeof hash !== 'string' || !HEX64.test(hash)) return undefined;
  const head: StoredHead = { seq: seq as number, hash };
  const flaw = value.flaw as Partial<HeadFlaw> | undefined;
  if (value.flaw !== undefined && !isFlaw(flaw)) return head;
  if (typeof value.mac === 'string' && HEX64.test(value.mac)) head.mac = value.mac;
  if (flaw !== undefined) head.flaw = flaw as HeadFlaw;
  return head;
}

function isFlaw(f: Partial<HeadFlaw> | undefined): boolean {
  return (
    !!f &&
    typeof f === 'object' &&
    Number.isSafeInteger(f.seq) &&
    typeof f.hash === 'string' &&
    HEX64.test(f.hash) &&
    FLAW_KINDS.includes(f.found as HeadFlawKind) &&
    (f.at === undefined || (typeof f.at === 'string' && f.at.length <= 40))
  );
}
