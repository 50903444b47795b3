import type { Caller } from '../../domain/auth/caller.js';
import { verifyChain, type IntegrityReport } from '../../domain/ledger/hash-chain.js';
import type { LedgerKeys } from '../../domain/ledger/ledger-seal.js';
import type { ChangeLedger } from '../../domain/ports/change-ledger.js';
import { requireViewer } from './change-view.js';

/** What an integrity answer says when svc has no ledger key: the check cannot see what a store writer does. */
export const UNKEYED_WARNING =
  'SVC_LEDGER_KEY is not set: whoever can write the ledger store (the file, or Redis) can remove the newest entries and rewrite the head to match, or edit an entry and recompute every later hash, and this check cannot tell; set SVC_LEDGER_KEY, and keep heads outside svc (docs/ledger.md, "Anchoring the head")';

/** The integrity answer: the walk's report, and without a key a warning saying what it cannot see. */
export interface VerifiedLedger extends IntegrityReport {
  /** Present when SVC_LEDGER_KEY is not set: what this check cannot find (UNKEYED_WARNING). */
  warning?: string;
}

/**
 * `GET /api/v1/changes/integrity` and `svc changes verify`: walks the whole
 * chain as stored, up to the head the ledger keeps apart from it, with the
 * ledger keys when set (entries, the head's and the anchor's seals); the
 * answer carries that head for an anchor kept elsewhere, and says plainly
 * when there is no key to check with.
 */
export class VerifyLedger {
  constructor(
    private readonly ledger: ChangeLedger,
    /** SVC_LEDGER_KEY, SVC_LEDGER_KEY_PREVIOUS, SVC_LEDGER_ACCEPT_HEAD, when set. */
    private readonly keys: LedgerKeys = {},
  ) {}

  async execute(caller: Caller): Promise<VerifiedLedger> {
    requireViewer(caller, 'Verifying the change ledger');
    const { anchor, head, records } = await this.ledger.chain();
    const report = await verifyChain(records, anchor, { head, ...this.keys });
    return this.keys.key === undefined ? { ...report, warning: UNKEYED_WARNING } : report;
  }
}
