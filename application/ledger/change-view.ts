import { hasRole, type Caller } from '../../domain/auth/caller.js';
import { ForbiddenError } from '../../domain/errors.js';
import type { ChangeEntry } from '../../domain/ledger/change-entry.js';

/**
 * An entry as this caller may see it. Viewers see who changed what, where,
 * when and with what outcome; the body of the change, the states before and
 * after, the values in the diff and the inverse change (which carries the
 * before state)
 * only operators and admins see. `redacted: true` says fields were withheld.
 */
export type ChangeView = ChangeEntry | (Omit<ChangeEntry, 'before' | 'after' | 'inverse'> & { redacted: true });

export function viewFor(entry: ChangeEntry, caller: Caller): ChangeView {
  if (hasRole(caller, 'operator')) return entry;
  const { before: _b, after: _a, inverse: _i, ...rest } = entry;
  return {
    ...rest,
    change: { method: entry.change.method, ...(entry.change.patchType ? { patchType: entry.change.patchType } : {}) },
    ...(entry.dryRun ? { dryRun: { ...entry.dryRun, diff: entry.dryRun.diff.map((d) => ({ path: d.path })) } } : {}),
    redacted: true,
  };
}

/** Reading the ledger needs the viewer role. */
export function requireViewer(caller: Caller, what: string): void {
  if (!hasRole(caller, 'viewer'))
    throw new ForbiddenError(`${what} needs the viewer role; ${caller.username} holds no role that grants it`, { required: 'viewer' });
}
