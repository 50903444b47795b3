import type { Caller } from '../../domain/auth/caller.js';
import { ERROR_CODES, NotFoundError } from '../../domain/errors.js';
import type { ChangeLedger } from '../../domain/ports/change-ledger.js';
import { requireViewer, viewFor, type ChangeView } from './change-view.js';

/** `GET /api/v1/changes/{id}` and `svc changes show`. */
export class GetChange {
  constructor(private readonly ledger: ChangeLedger) {}

  async execute(id: string, caller: Caller): Promise<ChangeView> {
    requireViewer(caller, 'Reading the change ledger');
    const entry = await this.ledger.get(id);
    if (!entry) throw new NotFoundError(ERROR_CODES.NOT_FOUND, `No change ${JSON.stringify(id.slice(0, 80))} in the ledger (unknown, or removed by retention)`);
    return viewFor(entry, caller);
  }
}
