import { expect } from 'chai';
import {
  automaticRefusal,
  deliverInstead,
  gitDeliverable,
  gitopsWarning,
  managedObjects,
  markProposal,
  requireDelivery,
  type ProposalMarks,
} from '../../../application/gitops/gitops-gate.js';
import type { ClusterAction } from '../../../domain/actions/cluster-action.js';
import type { KubeObject } from '../../../domain/cluster/kube-types.js';
import { ValidationError } from '../../../domain/errors.js';
import { FakeCluster } from '../../fakes/fake-cluster.js';
import { argoMark, deliveryKit, WEB_YAML } from '../../support/git-delivery-kit.js';

const webRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' };
const apiRef = { ...webRef, name: 'api' };
const common = { risk: 'low' as const, rationale: 'load' };
const scaleWeb: ClusterAction = { type: 'scale', target: webRef, replicas: 3, description: 'Scale web to 3', ...common };
const scaleApi: ClusterAction = { type: 'scale', target: apiRef, replicas: 2, description: 'Scale api to 2', ...common };
const deployment = (name: string, annotations: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'shop', annotations },
  spec: { replicas: 1 },
});
const application: KubeObject = {
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Application',
  metadata: { name: 'shop', namespace: 'argocd' },
  spec: { source: { repoURL: 'https://github.com/team/shop.git', path: 'apps', targetRevision: 'main' } },
};
const tracked = (name: string) => deployment(name, { 'argocd.argoproj.io/tracking-id': `shop:apps/Deployment:shop/${name}` });
const noSource: ProposalMarks = [{ controller: 'flux', owner: 'Kustomization flux-system/apps' }, null];

describe('application/gitops/gitops-gate: how a change of GitOps-managed objects may be made', () => {
  describe('markProposal', () => {
    it("marks each action's object, null where none manages it, and says why git cannot take one", async () => {
      const cluster = new FakeCluster().put(tracked('web'), deployment('api'), application);
      const { deliver } = deliveryKit({}, ['git.corp.example']);
      const marks = await markProposal(cluster, [scaleWeb, scaleApi], deliver);
      expect(marks).to.have.length(2);
      expect(marks![0]).to.deep.include({ controller: 'argocd', owner: 'Application argocd/shop' });
      expect(marks![0]!.noGitDelivery).to.contain('github.com');
      expect(marks![1]).to.equal(null);
    });

    it('answers nothing when no object is managed, or there is no action', async () => {
      const cluster = new FakeCluster().put(deployment('web'), deployment('api'));
      expect(await markProposal(cluster, [scaleWeb, scaleApi])).to.equal(undefined);
      expect(await markProposal(cluster, [])).to.equal(undefined);
      expect(cluster.calls).to.deep.equal(['get', 'get']);
    });
  });

  it('offers git only when every object has a source svc pushes to', () => {
    expect(gitDeliverable([scaleWeb], [argoMark()])).to.equal(true);
    expect(gitDeliverable([scaleWeb], [{ ...argoMark(), noGitDelivery: 'not allowed' }])).to.equal(false);
    expect(gitDeliverable([scaleWeb, scaleApi], [argoMark(), null])).to.equal(false);
    expect(gitDeliverable([scaleWeb], noSource)).to.equal(false);
  });

  it('names the managed objects and their controllers in words', () => {
    expect(managedObjects([scaleWeb, scaleApi], [argoMark(), null])).to.deep.equal(['Deployment shop/web (Argo CD, Application argocd/shop)']);
    expect(managedObjects([scaleWeb], noSource)).to.deep.equal(['Deployment shop/web (Flux, Kustomization flux-system/apps)']);
    expect(managedObjects([scaleWeb], undefined)).to.deep.equal([]);
  });

  it('warns that a live change will be reverted, offering git when it can and saying why when it cannot', () => {
    expect(gitopsWarning([scaleWeb], undefined)).to.equal(undefined);
    expect(gitopsWarning([scaleWeb], [argoMark()]))
      .to.contain('will be reverted')
      .and.contain('delivery "git"');
    const refused = gitopsWarning([scaleWeb], [{ ...argoMark(), noGitDelivery: 'the host is not allowed' }]);
    expect(refused).to.contain('svc cannot commit this change to git (the host is not allowed)').and.contain('delivery "live"');
    expect(gitopsWarning([scaleWeb], noSource)).to.contain('cannot tell the git source of every object');
  });

  it('never lets automatic mode change a managed object live', () => {
    expect(automaticRefusal([scaleWeb], [argoMark()])).to.contain('automatic mode never changes a GitOps-managed object live');
    expect(automaticRefusal([scaleWeb], [null])).to.equal(undefined);
  });

  it('refuses a manual execution of managed objects that does not say how, and lets one that does', () => {
    expect(() => requireDelivery([scaleWeb], [argoMark()], undefined, '"executeChoice": 1'))
      .to.throw(ValidationError)
      .with.property('message')
      .that.contains('Call again with "executeChoice": 1 and "delivery": "git" or "live"');
    expect(() => requireDelivery([scaleWeb], [argoMark()], 'live', 'x')).to.not.throw();
    expect(() => requireDelivery([scaleWeb], undefined, undefined, 'x')).to.not.throw();
  });

  describe('deliverInstead', () => {
    const fix = {
      sessionId: `rem_${'c'.repeat(32)}`,
      summary: 'web is slow',
      marks: [argoMark()],
      requestedBy: 'alice',
      now: new Date('2026-12-03T08:00:00Z'),
    };

    it('dry-runs every action on the live objects, then commits the change instead of writing it', async () => {
      const cluster = new FakeCluster().put(deployment('web'));
      const { deliver, publisher } = deliveryKit({ 'apps/web.yaml': WEB_YAML });
      const { report, gitDelivery } = await deliverInstead(cluster, deliver, { ...fix, actions: [scaleWeb] });
      expect(cluster.calls).to.deep.equal(['dryRunPatch']);
      expect(cluster.writes).to.deep.equal([]);
      expect(publisher.written[0].content).to.contain('replicas: 3');
      expect(report.dryRunPassed).to.equal(true);
      expect(report.outcomes[0].status).to.equal('not-run');
      expect(report.outcomes[0].message).to.contain(`delivered through git (commit ${gitDelivery!.commit.slice(0, 12)} on svc/${fix.sessionId})`);
    });

    it('commits nothing when the API server refuses an action', async () => {
      const cluster = new FakeCluster().put(deployment('web'));
      const { deliver, publisher } = deliveryKit({ 'apps/web.yaml': WEB_YAML });
      const { report, gitDelivery } = await deliverInstead(cluster, deliver, { ...fix, actions: [scaleWeb, scaleApi], marks: [argoMark(), argoMark()] });
      expect(gitDelivery).to.equal(undefined);
      expect(publisher.requests).to.deep.equal([]);
      expect(report).to.deep.include({ dryRunPassed: false });
      expect(report.refused).to.deep.include({ action: 2, reason: 'NotFound' });
      expect(report.outcomes.map((o) => o.message)).to.deep.equal(Array(2).fill('the dry run refused an action; nothing was committed'));
    });
  });
});
