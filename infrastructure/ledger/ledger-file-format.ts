import type { StoredRecord } from '../../domain/ledger/hash-chain.js';
import type { StoredAnchor } from '../../domain/ledger/ledger-seal.js';
import { recordFromText } from '../../domain/ledger/ledger-text.js';

/** The first line of a pruned ledger file: where the chain starts (the last pruned entry), with its seal. */
export const anchorLine = (a: StoredAnchor) => `${JSON.stringify({ anchor: a })}\n`;

/** The anchor a first line holds, or undefined when it is not an anchor line. */
export function anchorOf(text: string): StoredAnchor | undefined {
  if (!text.startsWith('{"anchor"')) return undefined;
  try {
    const a = (JSON.parse(text) as { anchor?: StoredAnchor }).anchor;
    if (!a || typeof a.seq !== 'number' || typeof a.hash !== 'string') return undefined;
    return { seq: a.seq, hash: a.hash, ...(typeof a.mac === 'string' ? { mac: a.mac } : {}) };
  } catch {
    return undefined;
  }
}

/** A line read back for a walk: an entry, or what is wrong with it, naming where it is. */
export function lineRecord(line: { offset: number; text: string; terminated: boolean }): StoredRecord {
  const where = line.terminated ? `the line at byte ${line.offset}` : `the last line (at byte ${line.offset}, with no newline after it)`;
  return recordFromText(line.text, where);
}
