import { expect } from 'chai';
import { ValidationError } from '../../domain/errors.js';
import { validateGitopsTarget } from '../../domain/gitops/gitops-target.js';
import { manifestFiles, solutionFolderName } from '../../domain/gitops/manifest-files.js';
import { pullRequestTarget } from '../../domain/gitops/pull-request-target.js';
import { selectPushCredential } from '../../domain/gitops/push-credential.js';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import { argoSource, fluxSourceRef, ownerClaim } from '../../domain/gitops/gitops-ownership.js';

const obj = (kind: string, name: string, namespace?: string): KubeObject => ({
  apiVersion: 'v1',
  kind,
  metadata: { name, ...(namespace ? { namespace } : {}) },
});
const defaults = { branch: 'svc/sol_1', path: '' };
const thrown = (fn: () => unknown): Error => {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a throw');
};

describe('GitOps delivery rules (domain)', () => {
  describe('validateGitopsTarget', () => {
    it('defaults the branch and keeps the repository rules of prompt repos', () => {
      const t = validateGitopsTarget({ repo: 'https://user:pw@github.com/team/shop.git', path: 'apps//web/' }, defaults);
      expect(t.location).to.deep.include({ branch: 'svc/sol_1', subPath: 'apps/web', host: 'github.com', source: 'https://***:***@github.com/team/shop.git' });
      expect(t.pullRequest).to.equal(false);
      expect(thrown(() => validateGitopsTarget({ repo: 'ftp://github.com/x' }, defaults)).message).to.match(/^Invalid override repoUrl scheme: ftp/);
      expect(thrown(() => validateGitopsTarget({ repo: 'http://[::1]/x' }, defaults)).message).to.include('is a loopback address');
      expect(thrown(() => validateGitopsTarget({ repo: 'http://0x7f.1/x' }, defaults)).message).to.include('loopback');
      expect(thrown(() => validateGitopsTarget({ repo: 'https://github.com/x', branch: 'a b' }, defaults)).message).to.equal(
        'Invalid override branch name: a b',
      );
    });

    it('refuses branch names git refuses, and the base branch as the branch', () => {
      for (const bad of ['-x', 'a..b', 'x/', 'x.lock', '.hidden/x', 'HEAD', 'a//b']) {
        const e = thrown(() => validateGitopsTarget({ repo: 'https://github.com/x/y', branch: bad }, defaults));
        expect(e, bad).to.be.instanceOf(ValidationError);
      }
      expect(thrown(() => validateGitopsTarget({ repo: 'https://github.com/x/y', baseBranch: 'a..b' }, defaults)).message).to.include(
        'Invalid gitops baseBranch',
      );
      expect(thrown(() => validateGitopsTarget({ repo: 'https://github.com/x/y', branch: 'prod', baseBranch: 'prod' }, defaults)).message).to.include(
        'svc never pushes to the base branch',
      );
    });
  });

  describe('selectPushCredential (SPEC.md credential table, no anonymous push)', () => {
    const at = (repo: string) => validateGitopsTarget({ repo }, defaults).location;
    it('the header for any host and scheme; the server token only over https to an allowlisted host', () => {
      expect(selectPushCredential({ location: at('http://git.example.com/x'), headerToken: ' h-token ', allowedHosts: [] })).to.deep.equal({
        kind: 'header',
        token: 'h-token',
      });
      expect(selectPushCredential({ location: at('https://github.com/x/y'), serverToken: 's-token', allowedHosts: ['github.com'] })).to.deep.equal({
        kind: 'server',
        token: 's-token',
      });
    });
    it('refuses without a credential, naming what to set, never echoing the server token', () => {
      const cases: [string, string[], string][] = [
        ['https://git.example.com/x', ['github.com'], 'add git.example.com to SVC_ALLOWED_REPO_HOSTS'],
        ['http://github.com/x/y', ['github.com'], 'only ever sent over https://'],
      ];
      for (const [repo, hosts, words] of cases) {
        const e = thrown(() => selectPushCredential({ location: at(repo), serverToken: 'server-secret-0123', allowedHosts: hosts }));
        expect(e).to.be.instanceOf(ValidationError);
        expect(e.message).to.include(words).and.not.include('server-secret-0123');
      }
      expect(thrown(() => selectPushCredential({ location: at('https://github.com/x/y'), allowedHosts: ['github.com'] })).message).to.include(
        'set SVC_GIT_TOKEN on the server',
      );
    });
  });

  describe('pullRequestTarget', () => {
    const at = (repo: string) => validateGitopsTarget({ repo }, defaults).location;
    it('GitHub by host name, GitLab by host name or SVC_GITOPS_PROVIDER, the API on the repository host only', () => {
      expect(pullRequestTarget(at('https://github.com/team/shop.git'), {})).to.deep.equal({
        provider: 'github',
        apiUrl: 'https://api.github.com',
        project: 'team/shop',
      });
      expect(pullRequestTarget(at('https://gitlab.com/g/sub/shop.git'), {})).to.deep.equal({
        provider: 'gitlab',
        apiUrl: 'https://gitlab.com/api/v4',
        project: 'g/sub/shop',
      });
      expect(pullRequestTarget(at('https://ghe.corp.example/team/shop'), { githubApiUrl: 'https://ghe.corp.example/api/v3/' })).to.deep.include({
        provider: 'github',
        apiUrl: 'https://ghe.corp.example/api/v3',
      });
      expect(thrown(() => pullRequestTarget(at('https://git.corp.example/team/shop'), {})).message).to.include('Set SVC_GITOPS_PROVIDER');
      expect(thrown(() => pullRequestTarget(at('https://git.corp.example/team/shop'), { provider: 'gitlab' })).message).to.include(
        'does not send the push token to another host',
      );
      expect(thrown(() => pullRequestTarget(at('https://github.com/just-one'), {})).message).to.include('owner/repository');
    });
  });

  describe('manifest files', () => {
    it('one <kind>-<name>.yaml per object in lower case, namespaces added only on a clash', () => {
      const files = manifestFiles([obj('Service', 'Web'), obj('ConfigMap', 'cfg', 'a'), obj('ConfigMap', 'cfg', 'b')], 'apps/web');
      expect(files.map((f) => f.path)).to.deep.equal(['apps/web/service-web.yaml', 'apps/web/configmap-cfg-a.yaml', 'apps/web/configmap-cfg-b.yaml']);
      expect(files[0].content).to.equal('apiVersion: v1\nkind: Service\nmetadata:\n  name: Web\n');
      expect(manifestFiles([obj('Service', 'x')], '')[0].path).to.equal('service-x.yaml');
    });
    it('the default folder is the first workload name, else the first object, else the solution id', () => {
      expect(solutionFolderName([obj('Service', 'front'), { ...obj('Deployment', 'shop-api'), apiVersion: 'apps/v1' }], 'sol_1')).to.equal('shop-api');
      expect(solutionFolderName([obj('ConfigMap', 'cfg')], 'sol_1')).to.equal('cfg');
      expect(solutionFolderName([], 'sol_1')).to.equal('sol_1');
    });
  });
});

describe('GitOps ownership (domain)', () => {
  const deploy = (labels: Record<string, string> = {}, annotations: Record<string, string> = {}): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'x', labels, annotations },
  });
  it('reads the owner from Flux labels, the Argo CD tracking annotation or instance label', () => {
    expect(ownerClaim(deploy({ 'kustomize.toolkit.fluxcd.io/name': 'apps', 'kustomize.toolkit.fluxcd.io/namespace': 'flux-system' }))).to.deep.equal({
      controller: 'flux',
      ref: { apiVersion: 'kustomize.toolkit.fluxcd.io/v1', kind: 'Kustomization', name: 'apps', namespace: 'flux-system' },
    });
    expect(ownerClaim(deploy({ 'helm.toolkit.fluxcd.io/name': 'web' }))!.ref).to.deep.include({ kind: 'HelmRelease', name: 'web', namespace: 'x' });
    expect(ownerClaim(deploy({}, { 'argocd.argoproj.io/tracking-id': 'team_shop:apps/Deployment:x/web' }))!.ref).to.deep.include({
      name: 'shop',
      namespace: 'team',
    });
    expect(ownerClaim(deploy({ 'app.kubernetes.io/instance': 'shop' }))!.ref).to.deep.include({ kind: 'Application', name: 'shop', namespace: 'argocd' });
    expect(ownerClaim(deploy({ app: 'web' }))).to.equal(undefined);
  });
  it('finds the git source of an Application (not a Helm chart) and of a Kustomization', () => {
    const app = (source: Record<string, unknown>): KubeObject => ({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: { name: 'a' },
      spec: { source },
    });
    expect(argoSource(app({ repoURL: 'https://github.com/a/b', path: './apps/web/', targetRevision: 'HEAD' }))).to.deep.equal({
      repoURL: 'https://github.com/a/b',
      path: 'apps/web',
      revision: undefined,
    });
    expect(argoSource(app({ repoURL: 'https://charts.example', chart: 'web', targetRevision: '1.0.0' }))).to.equal(undefined);
    const ks: KubeObject = {
      apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
      kind: 'Kustomization',
      metadata: { name: 'apps', namespace: 'flux-system' },
      spec: { path: './apps', sourceRef: { kind: 'GitRepository', name: 'config' } },
    };
    expect(fluxSourceRef(ks)).to.deep.equal({
      ref: { apiVersion: 'source.toolkit.fluxcd.io/v1', kind: 'GitRepository', name: 'config', namespace: 'flux-system' },
      path: 'apps',
    });
  });
});
