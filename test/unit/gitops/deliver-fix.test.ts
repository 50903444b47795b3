import { expect } from 'chai';
import { DeliverFix, type FixDelivery } from '../../../application/gitops/deliver-fix.js';
import type { ClusterAction } from '../../../domain/actions/cluster-action.js';
import { YamlManifestEditor } from '../../../infrastructure/gitops/yaml-manifest-editor.js';
import {
  argoMark as argo,
  deliveryKit as setup,
  MemoryPublisher,
  RecordingPullRequests,
  SERVER_GIT_TOKEN as TOKEN,
  WEB_YAML,
} from '../../support/git-delivery-kit.js';
import { rejection } from '../../support/rejection.js';

const SESSION = `rem_${'c'.repeat(32)}`;
const web = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' };
const common = { description: 'Scale web to 3', risk: 'low' as const, rationale: 'load' };
const scale: ClusterAction = { type: 'scale', target: web, replicas: 3, ...common };

const fix = (over: Partial<FixDelivery> = {}): FixDelivery => ({
  sessionId: SESSION,
  summary: 'web   is\nslow under load',
  actions: [scale],
  marks: [argo()],
  requestedBy: 'alice',
  now: new Date('2026-12-02T10:00:00Z'),
  ...over,
});

describe('DeliverFix: a proposed fix committed to the GitOps source instead of the live objects', () => {
  it("edits the object's document in place (comments kept), pushes svc/<session> from the followed revision, and opens a pull request", async () => {
    const { publisher, pullRequests, deliver } = setup();
    const delivered = await deliver.execute(fix());
    expect(publisher.written).to.have.length(1);
    const [file] = publisher.written;
    expect(file.path).to.equal('apps/web.yaml');
    expect(file.content).to.include('replicas: 3').and.include("# the shop's web tier").and.include('image: ghcr.io/team/web:1.4.2');
    const [request] = publisher.requests;
    expect(request).to.deep.include({ branch: `svc/${SESSION}`, baseBranch: 'main', token: TOKEN });
    expect(request.message).to.equal(`svc: web is slow under load\n\n- Scale web to 3\nSession: ${SESSION}\n`);
    expect(pullRequests.specs).to.have.length(1);
    expect(pullRequests.specs[0]).to.deep.include({ provider: 'github', project: 'team/shop', head: `svc/${SESSION}`, base: 'main' });
    expect(pullRequests.specs[0].body).to.include('Scale web to 3 (Deployment shop/web)').and.include('- `apps/web.yaml`');
    expect(delivered).to.deep.include({ branch: `svc/${SESSION}`, baseBranch: 'main', changed: true, files: ['apps/web.yaml'] });
    expect(delivered.pullRequest).to.deep.equal({ url: 'https://github.com/team/shop/pull/12', number: 12, existing: false });
    expect(JSON.stringify(delivered)).not.to.include(TOKEN);
  });

  it('pushes without a pull request, saying why, when the host is neither GitHub nor GitLab as far as svc can tell', async () => {
    const { pullRequests, deliver } = setup({ 'apps/web.yaml': WEB_YAML });
    const delivered = await deliver.execute(fix({ marks: [argo('https://git.corp.example/team/shop.git')] }));
    expect(pullRequests.specs).to.deep.equal([]);
    expect(delivered.pullRequest).to.equal(undefined);
    expect(delivered.note).to.match(/^No pull request opened: .*SVC_GITOPS_PROVIDER/);
  });

  const refusals: [string, Partial<FixDelivery>, RegExp, string[]?][] = [
    [
      'an object no GitOps controller manages',
      { marks: [null] },
      /action 1 \(Deployment shop\/web\) is not managed by a GitOps controller; send delivery "live"/,
    ],
    [
      'an object whose git source svc cannot tell',
      { marks: [{ controller: 'flux', owner: 'HelmRelease flux-system/web' }] },
      /managed by HelmRelease flux-system\/web, whose git source svc cannot tell/,
    ],
    [
      'objects from two repositories',
      { actions: [scale, { ...scale, target: { ...web, name: 'api' } }], marks: [argo(), argo('https://github.com/team/api.git')] },
      /come from 2 repositories/,
    ],
    [
      'a repository on a host not allowed',
      { marks: [argo('https://git.evil.example/team/shop.git')] },
      /host git.evil.example is not in the allowed repository hosts \(SVC_ALLOWED_REPO_HOSTS/,
    ],
    [
      'a delete (not a patch svc writes into YAML)',
      { actions: [{ type: 'delete', target: web, ...common }] },
      /a delete of Deployment shop\/web is not a change svc writes into YAML/,
    ],
    [
      'an object not in the plain YAML under the source path',
      { marks: [argo(undefined, 'other')] },
      /Deployment shop\/web was not found in the YAML files under other/,
    ],
  ];
  for (const [what, over, message] of refusals)
    it(`refuses ${what}, naming why, and pushes nothing`, async () => {
      const { publisher, deliver } = setup();
      const err = await rejection(deliver.execute(fix(over)));
      expect(err.message).to.match(/^Cannot deliver through git: /);
      expect(err.message).to.match(message);
      expect(publisher.written).to.deep.equal([]);
    });

  it('says at proposal time which marks cannot be delivered through git', () => {
    const { deliver } = setup();
    expect(deliver.refusalFor(argo())).to.equal(undefined);
    expect(deliver.refusalFor({ controller: 'flux', owner: 'HelmRelease flux-system/web' })).to.match(/cannot tell the git source of HelmRelease/);
    expect(deliver.refusalFor(argo('https://git.evil.example/x.git'))).to.match(/^the source repository's host git.evil.example is not in the allowed/);
  });

  describe('constructed over its ports and settings', () => {
    /** A DeliverFix with the server token this test gives (or none), over the kit's repository in memory. */
    const built = (serverToken?: string) => {
      const publisher = new MemoryPublisher({ 'apps/web.yaml': WEB_YAML });
      const deliver = new DeliverFix({ publisher, pullRequests: new RecordingPullRequests() }, new YamlManifestEditor(), {
        ...(serverToken ? { serverToken } : {}),
        allowedHosts: ['github.com'],
        author: { name: 'svc', email: 'svc@localhost' },
        pullRequests: {},
        timeoutMs: 5000,
      });
      return { publisher, deliver };
    };

    it('never pushes anonymously: with no server token and no X-Svc-Git-Token the caller is told what to set, before any push', async () => {
      const { publisher, deliver } = built();
      const err = await rejection(deliver.execute(fix()));
      expect(err.message).to.match(/a push needs a credential and none applies.*X-Svc-Git-Token/);
      expect(publisher.requests).to.deep.equal([]);
    });

    it("pushes with the caller's X-Svc-Git-Token over the server's, and carries neither into the answer", async () => {
      const { publisher, deliver } = built(TOKEN);
      const delivered = await deliver.execute(fix({ gitToken: 'caller-token-7c2a' }));
      expect(publisher.requests.map((r) => r.token)).to.deep.equal(['caller-token-7c2a']);
      expect(JSON.stringify(delivered)).not.to.include('caller-token-7c2a').and.not.to.include(TOKEN);
    });

    it('a source that follows no branch (no revision, or a revision that is no branch name) lets the repository choose the base', async () => {
      const { publisher, deliver } = built(TOKEN);
      await deliver.execute(fix({ marks: [argo(undefined, 'apps', '')] }));
      await deliver.execute(fix({ marks: [argo(undefined, 'apps', 'HEAD~1')] }));
      expect(publisher.requests.map((r) => r.baseBranch)).to.deep.equal([undefined, undefined]);
    });
  });
});
