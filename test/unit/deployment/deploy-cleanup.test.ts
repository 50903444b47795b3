import { expect } from 'chai';
import { cleanupOffer } from '../../../application/deployment/deploy-cleanup.js';
import type { ObjectOutcome } from '../../../application/deployment/deploy-checks.js';

const outcome = (name: string, o: ObjectOutcome['outcome'], ledgerId?: string): ObjectOutcome => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  name,
  namespace: 'shop',
  risk: 'low',
  outcome: o,
  ...(ledgerId ? { ledgerId } : {}),
});

describe('application/deployment/deploy-cleanup: what a stopped deploy offers to clean up', () => {
  it('offers the objects this run created, newest first, never one that existed before it', () => {
    const offer = cleanupOffer('sol_1', [
      outcome('a', 'created', 'chg_1'),
      outcome('b', 'updated', 'chg_2'),
      outcome('c', 'created', 'chg_3'),
      outcome('d', 'failed'),
    ]);
    expect(offer!.answer.created.map((o) => o.name)).to.deep.equal(['c', 'a']);
    expect(offer!.answer.call).to.deep.equal({ tool: 'deployManifests', params: { solutionId: 'sol_1', cleanup: true } });
    expect(offer!.answer).to.not.have.property('kubectl');
    expect(offer!.summary).to.contain('deletes the 2 object(s) this run created');
  });

  it('gives a kubectl command for a created object the ledger did not record, and no call when none was recorded', () => {
    const offer = cleanupOffer('sol_1', [outcome('a', 'created')]);
    expect(offer!.answer).to.not.have.property('call');
    expect(offer!.answer.kubectl).to.deep.equal(['kubectl delete configmap/a -n shop']);
    expect(offer!.summary).to.equal('1 created object(s) are not in the change ledger: delete them with the kubectl commands in cleanup.kubectl.');
  });

  it('offers nothing when the run created nothing', () => {
    expect(cleanupOffer('sol_1', [outcome('a', 'updated', 'chg_1'), outcome('b', 'unchanged')])).to.equal(undefined);
  });
});
