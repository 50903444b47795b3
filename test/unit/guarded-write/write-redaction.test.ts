import { expect } from 'chai';
import { MAX_DIFF_ENTRIES, UNNAMED_REMOVAL_NOTE, WriteRedaction } from '../../../application/guarded-write/write-redaction.js';
import { scopeSecretValues, withinSecretScope } from '../../../application/security/secret-scope.js';
import type { ClusterOperation } from '../../../domain/actions/cluster-action.js';
import type { KubeObject } from '../../../domain/cluster/kube-types.js';
import { DomainError } from '../../../domain/errors.js';

const secretRef = { apiVersion: 'v1', kind: 'Secret', name: 'db', namespace: 'shop' };
const cmRef = { apiVersion: 'v1', kind: 'ConfigMap', name: 'cfg', namespace: 'shop' };
const newPassword = 'hunter2-new-password';
const writePassword: ClusterOperation = { method: 'patch', ref: secretRef, patch: { stringData: { password: newPassword } }, patchType: 'merge' };

describe('application/guarded-write/write-redaction: what a guarded write shows never carries a Secret value', () => {
  it("notes the values a write puts into a Secret in the run's scope, before any request", async () => {
    const scoped = await withinSecretScope(async () => {
      WriteRedaction.forWrite(secretRef, writePassword);
      return scopeSecretValues();
    });
    expect(scoped).to.include(newPassword);
  });

  it('scrubs the values written from any text, wherever they were copied', () => {
    const redaction = WriteRedaction.forWrite(secretRef, writePassword);
    expect(redaction.text({ warnings: [`annotation copies ${newPassword}`] })).to.deep.equal({ warnings: ['annotation copies ***'] });
  });

  it("masks a Secret's data and stringData values in the diff, keys kept, and leaves other fields as they are", () => {
    const { diff } = WriteRedaction.forWrite(secretRef, writePassword).diff(
      [
        { segments: [{ key: 'stringData' }, { key: 'password' }], from: 'old-value-1', to: newPassword },
        { segments: [{ key: 'data' }], to: { user: 'YWRtaW4=', token: 'dG9rZW4=' } },
        { segments: [{ key: 'metadata' }, { key: 'labels' }, { key: 'app' }], to: 'db' },
      ],
      [],
    );
    expect(diff).to.deep.equal([
      { path: 'stringData.password', from: '***', to: '***' },
      { path: 'data', to: { user: '***', token: '***' } },
      { path: 'metadata.labels.app', to: 'db' },
    ]);
  });

  it('scrubs the values of the objects read, for an adapter that answered them unredacted', () => {
    const live: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db', namespace: 'shop' },
      data: { key: Buffer.from('old-secret-text').toString('base64') },
    };
    const op: ClusterOperation = { method: 'patch', ref: cmRef, patch: { data: { note: 'x' } }, patchType: 'merge' };
    const redaction = WriteRedaction.forWrite(cmRef, op).withObjects(live, null, undefined);
    expect(redaction.text('the value old-secret-text was seen')).to.equal('the value *** was seen');
    expect(WriteRedaction.forWrite(cmRef, op).text('the value old-secret-text was seen')).to.contain('old-secret-text');
  });

  it('notes removals the action did not name, and caps the diff, counting what it left out', () => {
    const changes = Array.from({ length: MAX_DIFF_ENTRIES + 3 }, (_, i) => ({ segments: [{ key: 'data' }, { key: `k${i}` }], from: 'v' }));
    const shown = WriteRedaction.forWrite(cmRef, { method: 'delete', ref: cmRef }).diff(changes, ['data.k0']);
    expect(shown.diff).to.have.length(MAX_DIFF_ENTRIES);
    expect(shown.diffOmitted).to.equal(3);
    expect(shown.diff[0]).to.deep.equal({ path: 'data.k0', from: 'v', note: UNNAMED_REMOVAL_NOTE });
    expect(shown.diff[1]).to.not.have.property('note');
  });

  it('scrubs a refusal but keeps the error a caller rethrows as it is', () => {
    const error = new DomainError('EXECUTION_ERROR', `failed with ${newPassword}`);
    const shown = WriteRedaction.forWrite(secretRef, writePassword).refusal({
      reason: 'Invalid',
      message: `bad ${newPassword}`,
      causes: [{ message: newPassword }],
      error,
    });
    expect(shown).to.deep.include({ reason: 'Invalid', message: 'bad ***', causes: [{ message: '***' }] });
    expect(shown.error).to.equal(error);
  });
});
