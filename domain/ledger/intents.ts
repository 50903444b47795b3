import { ConflictError, ValidationError } from '../errors.js';
import type { ChangeRecord } from './change-entry.js';

/**
 * An intent and its outcome are two entries: the intent (type `intent`,
 * outcome `pending`) before the write is sent, the outcome entry (type
 * `change` or `revert`, `intentId` naming the intent) after. Refused before
 * any write: an intent with another outcome or naming an intent itself, an
 * outcome entry with outcome `pending`.
 */
export function checkIntentFields(record: ChangeRecord): void {
  if (record.type === 'intent') {
    if (record.outcome.status !== 'pending') throw new ValidationError('A ledger intent has the outcome pending: its outcome is the entry that closes it');
    if (record.intentId !== undefined) throw new ValidationError('A ledger intent cannot close another intent');
  } else if (record.outcome.status === 'pending') {
    throw new ValidationError(`A ledger ${record.type} entry has an outcome; pending is an intent's`);
  }
}

/** The ConflictError of an outcome for an intent that is not open (unknown, or closed already: by this svc or another replica). */
export function intentNotOpen(intentId: string): ConflictError {
  return new ConflictError(`Ledger intent ${intentId.slice(0, 80)} is not open: unknown, or its outcome is already recorded`, {
    intentId: intentId.slice(0, 80),
  });
}
