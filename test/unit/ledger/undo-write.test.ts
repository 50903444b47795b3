import { expect } from 'chai';
import { entryRef, undoRefusal, undoRequest } from '../../../application/ledger/undo-write.js';
import type { KubeObject } from '../../../domain/cluster/kube-types.js';
import { ConflictError, DependencyError, ValidationError } from '../../../domain/errors.js';
import type { ChangeEntry, InverseChange } from '../../../domain/ledger/change-entry.js';
import type { RefusalReason } from '../../../domain/ports/metrics.js';
import { aChangeRecord, shopWebRef } from '../../support/ledger-records.js';

const entry = (over: Partial<ChangeEntry> = {}): ChangeEntry =>
  ({
    ...aChangeRecord(),
    after: { spec: { replicas: 3 }, labels: { app: 'web' }, resourceVersion: '101' },
    id: 'chg_1_0000000a',
    seq: 1,
    at: '2026-12-03T08:00:00Z',
    prevHash: '0'.repeat(64),
    hash: 'h',
    ...over,
  }) as ChangeEntry;
const live = (resourceVersion: string, replicas = 3, labels: Record<string, string> = { app: 'web' }): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop', labels, resourceVersion },
  spec: { replicas },
  status: { readyReplicas: replicas },
});
const restore: InverseChange = { method: 'patch', patchType: 'merge', body: { spec: { replicas: 1 } } };
const conflict = (f: () => unknown): ConflictError => {
  try {
    f();
  } catch (e) {
    expect(e).to.be.instanceOf(ConflictError);
    return e as ConflictError;
  }
  throw new Error('expected a ConflictError');
};

describe('application/ledger/undo-write: the undo of a ledger entry as a guarded write', () => {
  it('names the entry target', () => {
    expect(entryRef(entry())).to.deep.equal(shopWebRef);
  });

  it('restores the recorded values as a merge patch pinned to the version just read, the object still as the change left it', () => {
    const request = undoRequest(entry(), restore, false);
    expect(request.operation).to.deep.equal({ method: 'patch', ref: shopWebRef, patch: { spec: { replicas: 1 } }, patchType: 'merge' });
    expect(request.prepare!(live('101')).operation).to.deep.include({ resourceVersion: '101' });
  });

  it('accepts a new version when only status moved (controllers write it all the time)', () => {
    expect(undoRequest(entry(), restore, false).prepare!(live('150')).operation).to.deep.include({ resourceVersion: '150' });
  });

  it('refuses, with the diff, an object someone changed since, unless forced', () => {
    const error = conflict(() => undoRequest(entry(), restore, false).prepare!(live('150', 5)));
    expect(error.message).to.contain('changed since chg_1_0000000a').and.contain('force: true');
    expect((error.details as { diff: unknown[] }).diff).to.deep.equal([{ path: 'spec.replicas', from: 3, to: 5 }]);
    expect(undoRequest(entry(), restore, true).prepare!(live('150', 5)).operation).to.deep.include({ resourceVersion: '150' });
  });

  it('refuses to undo on an object that no longer exists, forced or not', () => {
    expect(conflict(() => undoRequest(entry(), restore, true).prepare!(null)).message).to.contain('no longer exists');
  });

  it('deletes a created object, ignoring what the cluster filled in after the create but not a label someone added', () => {
    const created = entry({ before: null, inverse: { method: 'delete' } });
    const bound = { ...live('150'), spec: { replicas: 3, nodeName: 'node-1' } } as KubeObject;
    expect(undoRequest(created, { method: 'delete' }, false).prepare!(bound).operation).to.deep.equal({
      method: 'delete',
      ref: shopWebRef,
      resourceVersion: '150',
    });
    conflict(() => undoRequest(created, { method: 'delete' }, false).prepare!(live('150', 3, { app: 'web', owner: 'bob' })));
  });

  it('re-creates a deleted object by apply, never over one that exists again', () => {
    const body = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop' }, spec: { replicas: 1 } };
    const recreate: InverseChange = { method: 'create', body };
    const deleted = entry({ change: { method: 'delete' }, after: undefined, inverse: recreate });
    expect(undoRequest(deleted, recreate, false).prepare!(null).operation).to.deep.equal({ method: 'apply', manifest: body });
    expect(conflict(() => undoRequest(deleted, recreate, true).prepare!(live('1'))).message).to.contain('exists again');
  });

  describe('undoRefusal', () => {
    it("answers svc's own refusal as a validation error, counted by its metric", () => {
      const counted: RefusalReason[] = [];
      const error = undoRefusal(entry(), { reason: 'OutsideWriteScope', message: 'not in the scope', causes: [] }, (m) => counted.push(m));
      expect(error).to.be.instanceOf(ValidationError);
      expect(error.message).to.contain('svc refuses the undo of chg_1_0000000a: not in the scope');
      expect(counted).to.deep.equal(['allow-list']);
    });

    it("answers the API server's refusal as a conflict, not counted", () => {
      const counted: RefusalReason[] = [];
      const error = undoRefusal(entry(), { reason: 'Invalid', message: 'spec.replicas: bad', causes: [{ field: 'spec.replicas', message: 'bad' }] }, (m) =>
        counted.push(m),
      );
      expect(error).to.be.instanceOf(ConflictError);
      expect((error as ConflictError).details).to.deep.equal({ reason: 'Invalid', causes: [{ field: 'spec.replicas', message: 'bad' }] });
      expect(counted).to.deep.equal([]);
    });

    it('hands back a failure as it is', () => {
      const failure = new DependencyError('kubernetes', 'unreachable');
      expect(undoRefusal(entry(), { reason: 'Unavailable', message: 'x', causes: [], error: failure }, () => undefined)).to.equal(failure);
    });
  });
});
