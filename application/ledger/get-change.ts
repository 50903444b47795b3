import type { Caller } from '../../domain/auth/caller.js';
import { ERROR_CODES, NotFoundError } from '../../domain/errors.js';
import type { VerdictHealth } from '../../domain/ledger/change-entry.js';
import type { ChangeLedger } from '../../domain/ports/change-ledger.js';
import { requireViewer, viewFor, type ChangeView } from './change-view.js';

/** The newest `verdict` entry on a change: svc's verdict reached after the tool answered. */
export interface LaterVerdictLink {
  /** The verdict entry (its `verdictOf` names this change). */
  id: string;
  /** Its verdict on this change's object. */
  health: VerdictHealth;
  /** Its verdict on the whole execution. */
  execution: VerdictHealth;
  /** When the verdict was reached. */
  decidedAt: string;
}

/**
 * An entry with the revert that undid it, when one did, and svc's later
 * verdict on it, when one was recorded: the change is linked both ways to
 * each (the revert's `revertOf`, the verdict's `verdictOf`).
 */
export type LinkedChangeView = ChangeView & { revertedBy?: string; laterVerdict?: LaterVerdictLink };

/** `GET /api/v1/changes/{id}` and `svc changes show`. */
export class GetChange {
  constructor(private readonly ledger: ChangeLedger) {}

  async execute(id: string, caller: Caller): Promise<LinkedChangeView> {
    requireViewer(caller, 'Reading the change ledger');
    const entry = await this.ledger.get(id);
    if (!entry) throw new NotFoundError(ERROR_CODES.NOT_FOUND, `No change ${JSON.stringify(id.slice(0, 80))} in the ledger (unknown, or removed by retention)`);
    const revert = entry.type === 'change' ? (await this.ledger.list({ revertOf: entry.id, outcome: 'applied' }, { limit: 1 })).entries[0] : undefined;
    const judged = entry.type === 'change' ? (await this.ledger.list({ verdictOf: entry.id, type: 'verdict' }, { limit: 1 })).entries[0] : undefined;
    const laterVerdict: LaterVerdictLink | undefined = judged?.verdict
      ? { id: judged.id, health: judged.verdict.health, execution: judged.verdict.execution, decidedAt: judged.verdict.decidedAt }
      : undefined;
    return { ...viewFor(entry, caller), ...(revert ? { revertedBy: revert.id } : {}), ...(laterVerdict ? { laterVerdict } : {}) };
  }
}
