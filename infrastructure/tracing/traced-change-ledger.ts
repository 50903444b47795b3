import type { ChangeEntry, ChangePage, ChangeRecord } from '../../domain/ledger/change-entry.js';
import type { ChangeLedger } from '../../domain/ports/change-ledger.js';
import type { Tracer } from '../../domain/ports/tracer.js';
import { traceMethods } from './trace-methods.js';

/**
 * ChangeLedger with a `ledger <operation>` span per call, under the tool run
 * that made it: the entry's id, seq, tool and target kind (never the body of
 * the change, which may carry data; the exporter scrubs strings anyway).
 */
export function tracedChangeLedger(inner: ChangeLedger, tracer: Tracer, store: string): ChangeLedger {
  const base = (op: string) => ({ 'svc.ledger.operation': op, 'svc.ledger.store': store });
  return traceMethods(inner, tracer, {
    append: (args) => {
      const record = args[0] as ChangeRecord;
      return {
        name: 'ledger append',
        attributes: {
          ...base('append'),
          'svc.ledger.type': record.type,
          'svc.ledger.tool': record.tool,
          'k8s.resource': record.target.kind,
          'svc.ledger.outcome': record.outcome.status,
          ...(record.intentId ? { 'svc.ledger.intent_id': record.intentId } : {}),
        },
        // the new head (seq and hash) in the trace backend: a copy of the chain's end kept outside svc
        fromResult: (r) => ({ 'svc.ledger.id': (r as ChangeEntry).id, 'svc.ledger.seq': (r as ChangeEntry).seq, 'svc.ledger.hash': (r as ChangeEntry).hash }),
      };
    },
    get: (args) => ({ name: 'ledger get', attributes: { ...base('get'), 'svc.ledger.id': String(args[0]) } }),
    list: () => ({ name: 'ledger list', attributes: base('list'), fromResult: (r) => ({ 'svc.ledger.result_count': (r as ChangePage).entries.length }) }),
    chain: () => ({ name: 'ledger chain', attributes: base('chain') }),
    openIntents: () => ({
      name: 'ledger open_intents',
      attributes: base('open_intents'),
      fromResult: (r) => ({ 'svc.ledger.result_count': (r as unknown[]).length }),
    }),
    prune: () => ({ name: 'ledger prune', attributes: base('prune'), fromResult: (r) => ({ 'svc.ledger.removed': Number(r) }) }),
  });
}
