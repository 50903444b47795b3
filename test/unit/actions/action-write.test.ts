import { expect } from 'chai';
import { approvedWrite, pinOf, previewedWrite } from '../../../application/actions/action-write.js';
import type { ProposedAction } from '../../../application/actions/proposed-action.js';
import type { ClusterAction } from '../../../domain/actions/cluster-action.js';
import type { KubeObject } from '../../../domain/cluster/kube-types.js';

const now = new Date('2026-12-03T08:00:00Z');
const common = { description: 'fix', risk: 'low' as const, rationale: 'because' };
const web = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' };
const pod = { apiVersion: 'v1', kind: 'Pod', name: 'web-1', namespace: 'shop' };
const widget = { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', namespace: 'shop' };
const manifest: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'shop' }, data: { a: '1' } };
const liveWidget: KubeObject = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'shop', resourceVersion: '7' },
  spec: { size: 1 },
};

const scale: ClusterAction = { type: 'scale', target: web, replicas: 3, ...common };
const apply: ClusterAction = { type: 'apply', manifest, ...common };
const deleteWeb: ClusterAction = { type: 'delete', target: web, ...common };
const deletePod: ClusterAction = { type: 'delete', target: pod, ...common };
const widgetPatch: ClusterAction = { type: 'patch', target: widget, patch: { spec: { size: 2 } }, ...common };

const approved = (over: Partial<ProposedAction>): ProposedAction => ({ effect: 'update', resourceVersion: '41', uid: 'uid-1', ...over }) as ProposedAction;

describe('application/actions/action-write: what a proposed action previews and what its approved write is pinned to', () => {
  describe('pinOf', () => {
    const table: { name: string; action: ClusterAction; approved?: ProposedAction; pin: object }[] = [
      { name: 'nothing approved: no pin', action: scale, pin: {} },
      { name: 'an update: the version judged', action: scale, approved: approved({}), pin: { resourceVersion: '41' } },
      { name: 'an apply of an absent object: a create', action: apply, approved: approved({ effect: 'create' }), pin: { create: true } },
      { name: 'a delete: the version and the uid', action: deleteWeb, approved: approved({ effect: 'delete' }), pin: { resourceVersion: '41', uid: 'uid-1' } },
      {
        name: 'a Pod delete: the uid alone (its status moves its version)',
        action: deletePod,
        approved: approved({ effect: 'delete' }),
        pin: { uid: 'uid-1' },
      },
      { name: 'a patch never carries the uid', action: scale, approved: approved({ resourceVersion: undefined }), pin: {} },
    ];
    for (const row of table) it(row.name, () => expect(pinOf(row.action, row.approved)).to.deep.equal(row.pin));
  });

  describe('previewedWrite', () => {
    it('sends no pin with the preview and asks for a create when the object is absent', () => {
      const request = previewedWrite(apply, now);
      expect(request.ref).to.deep.equal({ apiVersion: 'v1', kind: 'ConfigMap', name: 'cfg', namespace: 'shop' });
      expect(request.label).to.equal('low');
      expect(request.prepare!(null).operation).to.deep.equal({ method: 'create', manifest });
      const live = { ...manifest, metadata: { ...manifest.metadata, resourceVersion: '5' } };
      expect(request.prepare!(live).operation).to.deep.equal({ method: 'apply', manifest });
    });

    it("turns a custom resource's object patch into the JSON Patch from the live object, keeping the caller's patch as asked", () => {
      const prepared = previewedWrite(widgetPatch, now).prepare!(liveWidget);
      expect(prepared.jsonPatch).to.deep.equal([{ op: 'replace', path: '/spec/size', value: 2 }]);
      expect(prepared.operation).to.deep.include({ method: 'patch', patchType: 'json', patch: [{ op: 'replace', path: '/spec/size', value: 2 }] });
      expect(prepared.asked).to.deep.equal({ patchType: 'merge', patch: { spec: { size: 2 } } });
      expect(prepared.refusal).to.equal(undefined);
    });

    it('refuses a custom resource patch that changes nothing as NoChange', () => {
      const same: ClusterAction = { ...widgetPatch, patch: { spec: { size: 1 } } } as ClusterAction;
      const prepared = previewedWrite(same, now).prepare!(liveWidget);
      expect(prepared.refusal).to.deep.include({ reason: 'NoChange' });
      expect(prepared.refusal!.message).to.contain('Widget w');
    });

    it("leaves a built-in kind's patch as the model wrote it", () => {
      const prepared = previewedWrite(scale, now).prepare!({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop' } });
      expect(prepared).to.deep.equal({ operation: { method: 'patch', ref: web, patch: { spec: { replicas: 3 } }, patchType: 'merge' } });
    });
  });

  describe('approvedWrite', () => {
    it('sends exactly the operations the preview computed, pinned to the version approved, never recomputed from a changed object', () => {
      const ops = [{ op: 'replace' as const, path: '/spec/size', value: 2 }];
      const request = approvedWrite(widgetPatch, approved({ jsonPatch: ops, resourceVersion: '7' }), now);
      const changed = { ...liveWidget, spec: { size: 5 } };
      const prepared = request.prepare!(changed);
      expect(prepared.operation).to.deep.equal({ method: 'patch', ref: widget, patch: ops, patchType: 'json', resourceVersion: '7' });
      expect(prepared.asked).to.deep.equal({ patchType: 'merge', patch: { spec: { size: 2 } } });
    });

    it('refuses as AlreadyExists an object previewed absent that exists now, and sends the create when it is still absent', () => {
      const request = approvedWrite(apply, approved({ effect: 'create' }), now);
      expect(request.prepare!(null)).to.deep.equal({ operation: { method: 'create', manifest } });
      const refused = request.prepare!(manifest);
      expect(refused.refusal).to.deep.include({ reason: 'AlreadyExists' });
      expect(refused.refusal!.message).to.contain('nothing was applied');
    });

    it('pins a delete to its uid and version', () => {
      const prepared = approvedWrite(deleteWeb, approved({ effect: 'delete' }), now).prepare!(null);
      expect(prepared.operation).to.deep.equal({ method: 'delete', ref: web, resourceVersion: '41', uid: 'uid-1' });
    });
  });
});
