import type { Caller } from '../../domain/auth/caller.js';
import type { ChangeLedger } from '../../domain/ports/change-ledger.js';
import { encodeCursor, parseChangeQuery, type ChangeQueryInput } from './change-query.js';
import { requireViewer, viewFor, type ChangeView } from './change-view.js';

export interface ChangeList {
  /** Newest first. */
  changes: ChangeView[];
  /** Present when more entries match: pass it as `cursor` for the next page. */
  nextCursor?: string;
}

/** `GET /api/v1/changes` and `svc changes list`. */
export class ListChanges {
  constructor(private readonly ledger: ChangeLedger) {}

  async execute(query: ChangeQueryInput, caller: Caller): Promise<ChangeList> {
    requireViewer(caller, 'Reading the change ledger');
    const { filter, page } = parseChangeQuery(query);
    const out = await this.ledger.list(filter, page);
    return {
      changes: out.entries.map((e) => viewFor(e, caller)),
      ...(out.nextBeforeSeq !== undefined ? { nextCursor: encodeCursor(out.nextBeforeSeq) } : {}),
    };
  }
}
