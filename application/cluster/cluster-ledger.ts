import type { ChangeLedger } from '../../domain/ports/change-ledger.js';
import { currentCluster } from './current-cluster.js';

/**
 * The ledger of a fleet (SVC_CLUSTERS): every entry appended inside a
 * cluster's scope carries that cluster (`cluster`), sealed into its hash
 * with the rest of the entry. Entries without it (made before, or by an svc
 * serving one cluster) verify as they always did.
 */
export function clusterStampedLedger(ledger: ChangeLedger): ChangeLedger {
  return {
    append: (record) => {
      const cluster = currentCluster();
      return ledger.append(cluster !== undefined && record.cluster === undefined ? { ...record, cluster } : record);
    },
    get: (id) => ledger.get(id),
    list: (filter, page) => ledger.list(filter, page),
    chain: () => ledger.chain(),
    openIntents: () => ledger.openIntents(),
    prune: (cutoffMs) => ledger.prune(cutoffMs),
  };
}
