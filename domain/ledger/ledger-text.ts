import { canonicalJson } from './canonical-json.js';
import type { ChangeEntry } from './change-entry.js';
import { checkedEntryText } from './change-keys.js';
import type { StoredRecord } from './hash-chain.js';

/** An entry as stored: its canonical JSON (one line: JSON escapes every newline), refused when over the size limit. */
export function entryText(entry: ChangeEntry): string {
  return checkedEntryText(canonicalJson(entry));
}

const ID_IN_TEXT = /"id":"(chg_[0-9]{1,16}_[0-9a-f]{8})"/;

/** A stored text read back: an entry, or what is wrong with it (with the id it seems to carry, when one shows). */
export function recordFromText(text: string, where: string): StoredRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return broken(text, `${where} is not a complete entry (cut short by a crash during an append, or edited)`);
  }
  const e = value as Partial<ChangeEntry> | null;
  if (!e || typeof e !== 'object' || typeof e.id !== 'string' || typeof e.seq !== 'number' || typeof e.hash !== 'string' || typeof e.prevHash !== 'string') {
    return broken(text, `${where} is not a ledger entry`);
  }
  return { ok: true, entry: e as ChangeEntry, text };
}

function broken(text: string, problem: string): StoredRecord {
  const id = ID_IN_TEXT.exec(text)?.[1];
  return { ok: false, problem, ...(id ? { id } : {}) };
}

/** A parsed entry or undefined (for reads that serve entries, not verify them). */
export function entryFromText(text: string): ChangeEntry | undefined {
  const r = recordFromText(text, 'entry');
  return r.ok ? r.entry : undefined;
}
