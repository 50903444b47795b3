import type { Caller } from '../../domain/auth/caller.js';
import { verifyChain, type IntegrityReport } from '../../domain/ledger/hash-chain.js';
import type { ChangeLedger } from '../../domain/ports/change-ledger.js';
import { requireViewer } from './change-view.js';

/** `GET /api/v1/changes/integrity` and `svc changes verify`: walks the whole chain as stored. */
export class VerifyLedger {
  constructor(private readonly ledger: ChangeLedger) {}

  async execute(caller: Caller): Promise<IntegrityReport> {
    requireViewer(caller, 'Verifying the change ledger');
    const { anchor, records } = await this.ledger.chain();
    return verifyChain(records, anchor);
  }
}
