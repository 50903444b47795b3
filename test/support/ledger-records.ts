import type { KubeObject } from '../../domain/cluster/kube-types.js';
import type { ChangeRecord } from '../../domain/ledger/change-entry.js';

/** The Deployment shop/web the revert tests record changes of, and its reference. */
export const shopWebRef = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' };
export const shopWebDeployment = (replicas: number, image = 'web:1'): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop', labels: { app: 'web' } },
  spec: { replicas, template: { spec: { containers: [{ name: 'web', image }] } } },
});

/** A complete change record (every field of the item 1), with what a test changes. */
export function aChangeRecord(over: Partial<ChangeRecord> = {}): ChangeRecord {
  return {
    type: 'change',
    caller: { username: 'alice', roles: ['viewer', 'operator'] },
    tool: 'operate',
    sessionId: `opr_${'a'.repeat(32)}`,
    request: 'scale web to 3 replicas',
    rationale: 'more replicas absorb the load',
    risk: 'low',
    approval: { mode: 'manual', by: 'alice' },
    target: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' },
    before: { spec: { replicas: 1 }, labels: { app: 'web' }, annotations: {}, resourceVersion: '100' },
    dryRun: { accepted: true, diff: [{ path: 'spec.replicas', from: 1, to: 3 }] },
    change: { method: 'patch', patchType: 'merge', body: { spec: { replicas: 3 } } },
    outcome: { status: 'applied' },
    resourceVersionAfter: '101',
    inverse: { method: 'patch', patchType: 'merge', body: { spec: { replicas: 1 } } },
    ...over,
  };
}

/** The intent of aChangeRecord's write: what is about to be sent, no outcome yet. */
export function anIntentRecord(over: Partial<ChangeRecord> = {}): ChangeRecord {
  const { resourceVersionAfter: _rv, after: _after, ...change } = aChangeRecord();
  return { ...change, type: 'intent', runId: `run_${'b'.repeat(32)}`, outcome: { status: 'pending' }, inverse: null, ...over };
}

/** Every field of a ledger entry of a change to a cluster (the item 1 and what the ledger seals, with the intent it closes), as GET /api/v1/changes/{id} answers it. */
export const ENTRY_FIELDS = [
  'id',
  'seq',
  'at',
  'type',
  'caller',
  'tool',
  'sessionId',
  'request',
  'rationale',
  'risk',
  'approval',
  'target',
  'before',
  'after',
  'dryRun',
  'change',
  'outcome',
  'resourceVersionAfter',
  'inverse',
  'intentId',
  'prevHash',
  'hash',
];
