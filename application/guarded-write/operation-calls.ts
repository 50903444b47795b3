import type { ClusterOperation } from '../../domain/actions/cluster-action.js';
import type { DryRunResult, KubeObject } from '../../domain/cluster/kube-types.js';
import { applyBody, createBody, deleteBody, patchBody } from '../../domain/cluster/write-bodies.js';
import type { SentChange } from '../../domain/ledger/change-entry.js';
import type { ClusterWriter } from '../../domain/ports/cluster-writer.js';
import type { WriteAsSent } from '../../domain/write-guard/sent-write.js';

/** The write the guard judges: the operation as the adapter will send it. */
export function writeAsSent(op: ClusterOperation): WriteAsSent {
  return op.method === 'patch' ? { verb: 'patch', patchType: op.patchType, patch: op.patch } : { verb: op.method };
}

/** The exact call an operation sends, as the ledger records it: the body with its preconditions, as the adapter sends it. */
export function sentChangeOf(op: ClusterOperation): SentChange {
  switch (op.method) {
    case 'apply':
      return { method: 'apply', patchType: 'apply', body: applyBody(op.manifest, op.resourceVersion) };
    case 'create':
      return { method: 'create', body: createBody(op.manifest) };
    case 'patch':
      return { method: 'patch', patchType: op.patchType, body: patchBody(op.patch, op.resourceVersion) };
    case 'delete': {
      const body = deleteBody(op.resourceVersion, op.uid);
      return { method: 'delete', ...(body ? { body } : {}) };
    }
  }
}

/** The server-side dry run of one operation, with the preconditions it will be sent with: the server's verdict, not an exception. */
export async function dryRunOperation(writer: ClusterWriter, op: ClusterOperation): Promise<DryRunResult> {
  const pin = op.resourceVersion ? { resourceVersion: op.resourceVersion } : {};
  switch (op.method) {
    case 'apply':
      return writer.dryRunApply(op.manifest, pin);
    case 'create':
      return writer.dryRunCreate(op.manifest);
    case 'patch':
      return writer.dryRunPatch(op.ref, op.patch, { patchType: op.patchType, ...pin });
    case 'delete':
      return writer.dryRunDelete(op.ref, { ...pin, ...(op.uid ? { uid: op.uid } : {}) });
  }
}

/** The write itself; the object as stored (undefined after a delete). The server's `Warning` headers go to `warnings`. */
export async function sendOperation(writer: ClusterWriter, op: ClusterOperation, warnings: string[]): Promise<KubeObject | undefined> {
  const pin = op.resourceVersion ? { resourceVersion: op.resourceVersion } : {};
  switch (op.method) {
    case 'apply':
      return writer.apply(op.manifest, { ...pin, warnings });
    case 'create':
      return writer.create(op.manifest, { warnings });
    case 'patch':
      return writer.patch(op.ref, op.patch, { patchType: op.patchType, ...pin, warnings });
    case 'delete':
      await writer.delete(op.ref, { ...pin, ...(op.uid ? { uid: op.uid } : {}) });
      return undefined;
  }
}
