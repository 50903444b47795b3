import type { Caller } from '../../domain/auth/caller.js';
import { ERROR_CODES, NotFoundError } from '../../domain/errors.js';
import type { ChangeLedger } from '../../domain/ports/change-ledger.js';
import { requireViewer, viewFor, type ChangeView } from './change-view.js';

/** An entry with the revert that undid it, when one did: the change and its revert are linked both ways (the revert's `revertOf`). */
export type LinkedChangeView = ChangeView & { revertedBy?: string };

/** `GET /api/v1/changes/{id}` and `svc changes show`. */
export class GetChange {
  constructor(private readonly ledger: ChangeLedger) {}

  async execute(id: string, caller: Caller): Promise<LinkedChangeView> {
    requireViewer(caller, 'Reading the change ledger');
    const entry = await this.ledger.get(id);
    if (!entry) throw new NotFoundError(ERROR_CODES.NOT_FOUND, `No change ${JSON.stringify(id.slice(0, 80))} in the ledger (unknown, or removed by retention)`);
    const revert = entry.type === 'change' ? (await this.ledger.list({ revertOf: entry.id, outcome: 'applied' }, { limit: 1 })).entries[0] : undefined;
    return { ...viewFor(entry, caller), ...(revert ? { revertedBy: revert.id } : {}) };
  }
}
