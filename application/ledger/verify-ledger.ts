import type { Caller } from '../../domain/auth/caller.js';
import { verifyChain, type IntegrityReport } from '../../domain/ledger/hash-chain.js';
import type { ChangeLedger } from '../../domain/ports/change-ledger.js';
import { requireViewer } from './change-view.js';

/**
 * `GET /api/v1/changes/integrity` and `svc changes verify`: walks the whole
 * chain as stored, up to the head the ledger keeps apart from it, with the
 * ledger key when one is set; the answer carries that head for an anchor
 * kept elsewhere.
 */
export class VerifyLedger {
  constructor(
    private readonly ledger: ChangeLedger,
    /** SVC_LEDGER_KEY, when set. */
    private readonly key?: string,
  ) {}

  async execute(caller: Caller): Promise<IntegrityReport> {
    requireViewer(caller, 'Verifying the change ledger');
    const { anchor, head, records } = await this.ledger.chain();
    return verifyChain(records, anchor, { head, key: this.key });
  }
}
