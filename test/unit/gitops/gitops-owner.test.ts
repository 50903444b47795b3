import { expect } from 'chai';
import { gitopsMark, gitopsMarks } from '../../../application/gitops/gitops-owner.js';
import type { KubeObject, ResourceRef } from '../../../domain/cluster/kube-types.js';
import { ForbiddenError } from '../../../domain/errors.js';
import { FakeCluster } from '../../fakes/fake-cluster.js';

const webRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' };
const web = (labels: Record<string, string> = {}, annotations: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop', labels, annotations },
  spec: { replicas: 1 },
});
const application = (spec: Record<string, unknown>): KubeObject => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Application',
  metadata: { name: 'shop', namespace: 'argocd' },
  spec,
});
const kustomization: KubeObject = {
  apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
  kind: 'Kustomization',
  metadata: { name: 'apps', namespace: 'flux-system' },
  spec: { sourceRef: { kind: 'GitRepository', name: 'fleet' }, path: './apps/shop/' },
};
const gitRepository: KubeObject = {
  apiVersion: 'source.toolkit.fluxcd.io/v1',
  kind: 'GitRepository',
  metadata: { name: 'fleet', namespace: 'flux-system' },
  spec: { url: 'https://github.com/team/fleet.git', ref: { branch: 'prod' } },
};
const fluxLabels = { 'kustomize.toolkit.fluxcd.io/name': 'apps', 'kustomize.toolkit.fluxcd.io/namespace': 'flux-system' };

describe('application/gitops/gitops-owner: whether a GitOps controller manages an object, read from the cluster', () => {
  it('reads the Argo CD Application its tracking annotation names, and the git source it follows', async () => {
    const cluster = new FakeCluster().put(
      web({}, { 'argocd.argoproj.io/tracking-id': 'shop:apps/Deployment:shop/web' }),
      application({ source: { repoURL: 'https://github.com/team/shop.git', path: 'apps', targetRevision: 'main' } }),
    );
    expect(await gitopsMark(cluster, webRef)).to.deep.equal({
      controller: 'argocd',
      owner: 'Application argocd/shop',
      source: { repoURL: 'https://github.com/team/shop.git', path: 'apps', revision: 'main' },
    });
  });

  it('marks an Argo CD object with no git source it can tell (a Helm chart) without a source', async () => {
    const cluster = new FakeCluster().put(
      web({ 'app.kubernetes.io/instance': 'shop' }),
      application({ source: { repoURL: 'https://charts.example', chart: 'web' } }),
    );
    expect(await gitopsMark(cluster, webRef)).to.deep.equal({ controller: 'argocd', owner: 'Application argocd/shop' });
  });

  it('takes an Argo CD instance label without its Application for what Helm charts set, not as ownership', async () => {
    expect(await gitopsMark(new FakeCluster().put(web({ 'app.kubernetes.io/instance': 'shop' })), webRef)).to.equal(undefined);
  });

  it('follows a Flux Kustomization to its GitRepository: URL, branch and path', async () => {
    const cluster = new FakeCluster().put(web(fluxLabels), kustomization, gitRepository);
    expect(await gitopsMark(cluster, webRef)).to.deep.equal({
      controller: 'flux',
      owner: 'Kustomization flux-system/apps',
      source: { repoURL: 'https://github.com/team/fleet.git', path: 'apps/shop', revision: 'prod' },
    });
  });

  it('still marks a Flux object whose owner or source cannot be read: the controller will revert a live change all the same', async () => {
    expect(await gitopsMark(new FakeCluster().put(web(fluxLabels)), webRef)).to.deep.equal({ controller: 'flux', owner: 'Kustomization flux-system/apps' });
    expect(await gitopsMark(new FakeCluster().put(web(fluxLabels), kustomization), webRef)).to.deep.equal({
      controller: 'flux',
      owner: 'Kustomization flux-system/apps',
    });
  });

  it('answers "not managed" for an object without claims, an absent one, and one it may not read, never failing', async () => {
    const cluster = new FakeCluster().put(web());
    expect(await gitopsMark(cluster, webRef)).to.equal(undefined);
    expect(await gitopsMark(cluster, { ...webRef, name: 'gone' })).to.equal(undefined);
    const forbidding = new FakeCluster();
    forbidding.get = async (_ref: ResourceRef) => {
      throw new ForbiddenError('no get on deployments');
    };
    expect(await gitopsMark(forbidding, webRef)).to.equal(undefined);
  });

  it("gives each target's mark in the targets' order", async () => {
    const cluster = new FakeCluster().put(web(fluxLabels), { ...web(), metadata: { name: 'api', namespace: 'shop' } });
    const marks = await gitopsMarks(cluster, [{ ...webRef, name: 'api' }, webRef]);
    expect(marks.map((m) => m?.controller)).to.deep.equal([undefined, 'flux']);
  });
});
