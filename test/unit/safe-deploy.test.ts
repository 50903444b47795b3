import { expect } from 'chai';
import { SolutionSessions } from '../../application/deployment/solution-sessions.js';
import { ConflictError, ExecutionError, ForbiddenError, ValidationError } from '../../domain/errors.js';
import { previewDeploy } from '../../application/deployment/deploy-checks.js';
import type { ToolContext } from '../../application/tool-handler.js';
import type { WriteScope } from '../../domain/actions/write-scope.js';
import { rolesUpTo, type Caller } from '../../domain/auth/caller.js';
import { NO_SECOND_APPROVER } from '../../domain/auth/session-owner.js';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import { NO_METRICS, type RefusalReason } from '../../domain/ports/metrics.js';
import { BUILT_IN_KINDS } from '../fakes/fake-cluster.js';
import { guardOver } from '../fakes/null-safety.js';
import { rejection } from '../support/rejection.js';
import { availableAtOnce, deployKit, deployManifestsOver, KIT_RESOURCES, manifestsAnswer, recommendAnswer, webManifests } from '../support/deploy-kit.js';

type Kit = ReturnType<typeof deployKit>;

async function generated(kit: Kit) {
  kit.llm.push(recommendAnswer());
  const rec = await kit.recommend.execute({ intent: 'an nginx web server for the shop front end' });
  const solutionId = rec.solutions[0].solutionId;
  await kit.choose.execute({ solutionId });
  await kit.answer.execute({ solutionId, stage: 'required', answers: { name: 'web', namespace: 'shop', 'deployment-image': 'nginx:1.25' } });
  kit.llm.push(manifestsAnswer(webManifests()));
  await kit.generate.execute({ solutionId });
  return solutionId;
}

const applies = (kit: Kit) => kit.cluster.writes.filter((w) => w.method === 'apply');

describe('deployManifests writes safely: kinds of the solution only, every dry run before any apply, each outcome recorded (fakes)', () => {
  it('refuses a ClusterRoleBinding riding along with a web app, before any request', async () => {
    const kit = deployKit();
    const solutionId = await generated(kit);
    const sessions = new SolutionSessions(kit.store, NO_SECOND_APPROVER);
    const s = await sessions.load(solutionId);
    const crb = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'web-admin' }, roleRef: {}, subjects: [] };
    await sessions.save(s, { ...s.state, manifests: { ...s.state.manifests!, objects: [...s.state.manifests!.objects, crb] } });
    const calls = kit.cluster.calls.length;
    const err = await rejection(kit.deploy.execute({ solutionId }));
    expect(err).to.be.instanceOf(ValidationError);
    expect(err.message).to.equal(
      "deployManifests refuses ClusterRoleBinding web-admin: the solution's resources are apps/v1/Deployment, v1/Service. Generate the manifests again (generateManifests) or choose another solution",
    );
    expect(kit.cluster.calls.length).to.equal(calls);
  });

  it('refuses objects outside SVC_WRITE_NAMESPACES, naming the list', async () => {
    const kit = deployKit();
    const solutionId = await generated(kit);
    const deploy = deployManifestsOver(kit, { scope: { namespaces: ['prod'], kinds: [] } });
    const err = await rejection(deploy.execute({ solutionId }));
    expect(err.message).to.contain('Service shop/web is in namespace shop, outside SVC_WRITE_NAMESPACES (prod)');
    expect(applies(kit)).to.deep.equal([]);
  });

  it('dry-runs every object at deploy time before applying any: a refusal of the second applies nothing', async () => {
    const kit = deployKit();
    const solutionId = await generated(kit);
    kit.cluster.rejectDryRun = (w) =>
      w.ref.kind === 'Deployment' ? { accepted: false, reason: 'Forbidden', message: 'exceeded quota: pods', causes: [] } : undefined;
    const dep = await kit.deploy.execute({ solutionId });
    expect(dep.status).to.equal('dry_run_refused');
    expect(dep.applied.map((o) => [o.kind, o.outcome])).to.deep.equal([
      ['Service', 'not-run'],
      ['Deployment', 'refused'],
    ]);
    expect(dep.message).to.equal('Nothing was applied: the API server refused the dry run of Deployment web: Forbidden: exceeded quota: pods');
    expect(applies(kit)).to.deep.equal([]);
  });

  it('an apply that fails half-way is answered and recorded per object, with the kubectl commands that delete what this run created when no ledger records it', async () => {
    const kit = deployKit();
    const solutionId = await generated(kit);
    const apply = kit.cluster.apply.bind(kit.cluster);
    kit.cluster.apply = async (m) => {
      if (m.kind === 'Deployment') throw new ExecutionError('Kubernetes rejected apply Deployment shop/web (403 Forbidden): admission webhook denied');
      return apply(m);
    };
    const dep = await kit.deploy.execute({ solutionId });
    expect(dep.status).to.equal('apply_failed');
    expect(dep.applied.map((o) => [o.kind, o.outcome])).to.deep.equal([
      ['Service', 'created'],
      ['Deployment', 'failed'],
    ]);
    // no change ledger here: svc says so and offers the command a person runs, not a call it cannot make safely
    expect(dep.cleanup).to.deep.equal({
      created: [{ apiVersion: 'v1', kind: 'Service', name: 'web', namespace: 'shop' }],
      kubectl: ['kubectl delete service/web -n shop'],
    });
    expect(dep.message)
      .to.contain('Stopped after 1 object(s) were applied')
      .and.contain('admission webhook denied')
      .and.contain('1 created object(s) are not in the change ledger: delete them with the kubectl commands in cleanup.kubectl');
    const stored = (await new SolutionSessions(kit.store, NO_SECOND_APPROVER).load(solutionId)).state.deployment;
    expect(stored?.ready).to.equal(false);
    expect(stored?.outcomes?.map((o) => [o.kind, o.outcome])).to.deep.equal([
      ['Service', 'created'],
      ['Deployment', 'failed'],
    ]);
  });

  it("a deploy that works answers each object with its outcome and svc's risk (a new ClusterIP Service is medium; a new workload starts pods: medium when its registry is allowed, high when none is listed)", async () => {
    const kit = deployKit();
    kit.cluster.onWrite = availableAtOnce;
    const solutionId = await generated(kit);
    const scope = { namespaces: [], kinds: [], imageRegistries: ['docker.io'] };
    const deploy = deployManifestsOver(kit, { scope });
    const dep = await deploy.execute({ solutionId, timeout: 5 });
    expect(dep.status).to.equal('ready');
    expect(dep.applied.map((o) => [o.kind, o.outcome, o.risk])).to.deep.equal([
      ['Service', 'created', 'medium'],
      ['Deployment', 'created', 'medium'],
    ]);
    // no SVC_IMAGE_REGISTRIES: an image from a registry the object did not use is the guard's high (issue 30 item 2)
    const fresh = deployKit();
    const open = await fresh.deploy.execute({ solutionId: await generated(fresh), preview: true });
    expect(open.preview!.find((p) => p.kind === 'Deployment')!.riskReasons).to.include('image nginx:1.25 is from registry docker.io, new to this object');
    const again = await kit.deploy.execute({ solutionId, timeout: 5 });
    expect(again.applied.map((o) => o.outcome)).to.deep.equal(['unchanged', 'unchanged']);
  });
});

const operatorNamed = (username: string, role: 'operator' | 'admin' = 'operator'): Caller => ({
  id: `tokens-file:svc:${username}`,
  username,
  groups: [],
  roles: [...rolesUpTo(role)],
  kind: 'tokens-file',
});
const as = (caller: Caller): ToolContext => ({ requestId: 'r1', caller });
const SECOND_APPROVER = { requireSecondApprover: true, protectedNamespaces: [] };
const crb = (namespace?: string): KubeObject => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  metadata: { name: 'web-admin', ...(namespace ? { namespace } : {}) },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
  subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: 'shop' }],
});
const privilegedPod: KubeObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'debug', namespace: 'shop' },
  spec: {
    hostPID: true,
    volumes: [{ name: 'root', hostPath: { path: '/' } }],
    containers: [{ name: 'debug', image: 'nginx:1.25', securityContext: { privileged: true } }],
    tolerations: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' }],
  },
};
const node: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'cp-1' }, spec: { taints: [] } };

/**
 * The model's recommendation and manifests are untrusted input: each case
 * below is something a poisoned answer can carry into a deploy. svc previews
 * every object through the write guard before applying any (issue 30 item 8);
 * after each refusal nothing was applied and the answer says why.
 */
describe('deployManifests through the write guard: attacks from the recommendation and the manifests (fakes)', () => {
  const refusals: RefusalReason[] = [];
  const metrics = { ...NO_METRICS, refusal: (r: RefusalReason) => void refusals.push(r) };
  beforeEach(() => {
    refusals.length = 0;
  });

  /** A generated solution whose recommendation also listed `resources` and whose manifests also carry `objects`, owned by `owner`. */
  async function rigged(kit: Kit, objects: KubeObject[], resources: { apiVersion: string; kind: string; namespaced: boolean }[] = [], owner?: Caller) {
    kit.cluster.resources = [...KIT_RESOURCES, ...BUILT_IN_KINDS.filter((k) => !KIT_RESOURCES.some((r) => r.apiVersion === k.apiVersion && r.kind === k.kind))];
    const solutionId = await generated(kit);
    const sessions = new SolutionSessions(kit.store, NO_SECOND_APPROVER);
    const s = await sessions.load(solutionId);
    const solution = { ...s.state.solution, resources: [...s.state.solution.resources, ...resources.map((r) => ({ ...r, purpose: 'the model said so' }))] };
    await sessions.save(s, {
      ...s.state,
      solution,
      ...(owner ? { owner: { id: owner.id, username: owner.username, kind: owner.kind } } : {}),
      manifests: { ...s.state.manifests!, objects: [...s.state.manifests!.objects, ...objects] },
    });
    return solutionId;
  }
  const deployer = (kit: Kit, approval = NO_SECOND_APPROVER, scope: WriteScope = { namespaces: [], kinds: [], imageRegistries: ['docker.io'] }) =>
    deployManifestsOver(kit, { approval, scope, metrics });

  it('a ClusterRoleBinding the recommendation listed, "in" namespace shop: refused by discovery (cluster-scoped), nothing applied, counted', async () => {
    const kit = deployKit();
    const solutionId = await rigged(kit, [crb('shop')], [{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', namespaced: true }]);
    const dep = await deployer(kit).execute({ solutionId });
    expect(dep.status).to.equal('dry_run_refused');
    const refused = dep.preview!.find((p) => p.kind === 'ClusterRoleBinding')!;
    expect(refused.effect).to.equal('refused');
    expect(refused.refusal!.reason).to.equal('InvalidTarget');
    expect(refused.refusal!.message).to.include('ClusterRoleBinding is cluster-scoped (discovery), so namespace shop does not limit it');
    expect(dep.message).to.match(/^Nothing was applied: svc refused ClusterRoleBinding web-admin: InvalidTarget: /);
    expect(applies(kit)).to.deep.equal([]);
    expect(refusals).to.deep.equal(['allow-list']);
  });

  it("a ClusterRoleBinding without a namespace is svc's high risk (cluster-wide RBAC): with the second-approver rule, its starter gets 403 and nothing is applied; another operator applies it only with the digest they previewed", async () => {
    const kit = deployKit();
    kit.cluster.onWrite = availableAtOnce;
    const alice = operatorNamed('alice');
    const solutionId = await rigged(kit, [crb()], [{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', namespaced: false }], alice);
    const deploy = deployer(kit, SECOND_APPROVER);
    const shown = await deploy.execute({ solutionId, preview: true }, as(alice));
    expect(shown.status).to.equal('previewed');
    const binding = shown.preview!.find((p) => p.kind === 'ClusterRoleBinding')!;
    expect(binding).to.deep.include({ effect: 'create', risk: 'high' });
    expect(binding.riskReasons).to.include('ClusterRoleBinding is cluster-scoped: the change is cluster-wide');
    expect(JSON.stringify(binding.diff.filter((d) => d.path.startsWith('roleRef')))).to.include('cluster-admin');
    expect(applies(kit)).to.deep.equal([]);
    // the starter, with or without the digest
    for (const planDigest of [undefined, shown.planDigest]) {
      const err = await rejection(deploy.execute({ solutionId, ...(planDigest ? { planDigest } : {}) }, as(alice)));
      expect(err).to.be.instanceOf(ForbiddenError);
      expect(err.message).to.include('needs a second approver: it includes a high-risk action');
    }
    // the starter under an admin token with the same name is the same person
    expect(
      await rejection(
        deploy.execute({ solutionId, planDigest: shown.planDigest }, as({ ...operatorNamed('ALICE', 'admin'), kind: 'static', id: 'static:svc:ALICE' })),
      ),
    ).to.be.instanceOf(ForbiddenError);
    // another operator must send the digest they reviewed
    const bob = operatorNamed('bob');
    const blind = await rejection(deploy.execute({ solutionId }, as(bob)));
    expect(blind).to.be.instanceOf(ValidationError);
    expect(blind.message).to.include('send the planDigest you reviewed');
    expect(applies(kit)).to.deep.equal([]);
    expect(refusals.filter((r) => r === 'risk')).to.have.length(3);
    const dep = await deploy.execute({ solutionId, planDigest: shown.planDigest, timeout: 5 }, as(bob));
    expect(dep.status).to.equal('ready');
    expect(applies(kit).map((w) => w.ref.kind)).to.include('ClusterRoleBinding');
  });

  it('without the rule the starter alone may deploy (a second operator is 403), and the preview still shows the high risk', async () => {
    const kit = deployKit();
    const alice = operatorNamed('alice');
    const solutionId = await rigged(kit, [crb()], [{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', namespaced: false }], alice);
    const err = await rejection(deployer(kit).execute({ solutionId, preview: true }, as(operatorNamed('mallory'))));
    expect(err).to.be.instanceOf(ForbiddenError);
    expect(applies(kit)).to.deep.equal([]);
  });

  it('a Node and a privileged Pod the recommendation listed: high with every reason; outside SVC_WRITE_NAMESPACES the Node is refused', async () => {
    const kit = deployKit();
    const solutionId = await rigged(
      kit,
      [node, privilegedPod],
      [
        { apiVersion: 'v1', kind: 'Node', namespaced: false },
        { apiVersion: 'v1', kind: 'Pod', namespaced: true },
      ],
    );
    const shown = await deployer(kit).execute({ solutionId, preview: true });
    const byKind = Object.fromEntries(shown.preview!.map((p) => [p.kind, p]));
    expect(byKind.Node).to.deep.include({ risk: 'high', effect: 'create' });
    expect(byKind.Node.riskReasons).to.include('Node is cluster-scoped: the change is cluster-wide');
    expect(byKind.Pod.risk).to.equal('high');
    expect(byKind.Pod.riskReasons)
      .to.include(
        'the pod spec at spec: container debug securityContext.privileged: true breaks the baseline Pod Security Standard (Privileged Containers), new in this change',
      )
      .and.include('the pod spec at spec: hostPID: true breaks the baseline Pod Security Standard (Host Namespaces), new in this change')
      .and.include('the pod spec at spec: volume root hostPath: {"path":"/"} breaks the baseline Pod Security Standard (HostPath Volumes), new in this change')
      .and.include('Pod spec.tolerations[0].key: tolerates node-role.kubernetes.io/control-plane (control-plane placement)');
    expect(shown.message).to.include('high risk');
    const scoped = await rejection(
      deployer(kit, NO_SECOND_APPROVER, { namespaces: ['shop'], kinds: [], imageRegistries: ['docker.io'] }).execute({ solutionId }),
    );
    expect(scoped).to.be.instanceOf(ValidationError);
    expect(scoped.message).to.include('Node cp-1 is in a cluster-scoped object, outside SVC_WRITE_NAMESPACES (shop)');
    // the guard says the same of the target as discovery resolves it
    const guard = guardOver(kit.cluster, { scope: { namespaces: ['shop'], kinds: [] } });
    const checked = await previewDeploy(
      guard,
      kit.cluster,
      [node],
      (await new SolutionSessions(kit.store, NO_SECOND_APPROVER).load(solutionId)).state.solution,
    );
    expect(checked.objects[0].refusal!.message).to.include('no namespace (cluster-scoped), outside SVC_WRITE_NAMESPACES (shop)');
    expect(applies(kit)).to.deep.equal([]);
  });

  it('a privileged Pod with the second-approver rule: its starter gets 403, nothing applied', async () => {
    const kit = deployKit();
    const alice = operatorNamed('alice');
    const solutionId = await rigged(kit, [privilegedPod], [{ apiVersion: 'v1', kind: 'Pod', namespaced: true }], alice);
    const err = await rejection(deployer(kit, SECOND_APPROVER).execute({ solutionId }, as(alice)));
    expect(err).to.be.instanceOf(ForbiddenError);
    expect(applies(kit)).to.deep.equal([]);
  });

  it('a kind outside the chosen solution is judged by discovery group/kind: a Knative Service is not the core Service the solution named', async () => {
    const kit = deployKit();
    kit.cluster.resources = [
      ...KIT_RESOURCES,
      {
        group: 'serving.knative.dev',
        version: 'v1',
        apiVersion: 'serving.knative.dev/v1',
        kind: 'Service',
        resource: 'services',
        namespaced: true,
        verbs: [],
        shortNames: [],
      },
    ];
    const ksvc: KubeObject = {
      apiVersion: 'serving.knative.dev/v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'shop' },
      spec: { template: { spec: { containers: [{ image: 'evil.example/miner:latest', securityContext: { privileged: true } }] } } },
    };
    const solution = {
      score: 1,
      description: 'web',
      resources: [{ apiVersion: 'v1', kind: 'Service', namespaced: true, purpose: 'x' }],
      patternsApplied: [],
      policiesRespected: [],
      droppedResources: [],
    };
    const checked = await previewDeploy(guardOver(kit.cluster), kit.cluster, [ksvc], solution);
    expect(checked.refused).to.equal(true);
    expect(checked.objects[0].refusal).to.deep.equal({
      reason: 'OutsideSolution',
      message: 'serving.knative.dev/Service shop/web is not one of the kinds of the solution chosen (Service): svc deploys only those',
    });
    expect(kit.cluster.writes).to.deep.equal([]);
    // through the tool: refused before any request
    const solutionId = await rigged(kit, [ksvc]);
    expect((await rejection(deployer(kit).execute({ solutionId }))).message).to.include(
      "deployManifests refuses Service shop/web: the solution's resources are",
    );
    expect(applies(kit)).to.deep.equal([]);
  });

  it("a Secret's values never show in the preview's diff (created or changed), and a Secret is high", async () => {
    const kit = deployKit();
    const secret: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: 'shop' }, data: { password: 'aHVudGVyMg==' } };
    const solutionId = await rigged(kit, [secret], [{ apiVersion: 'v1', kind: 'Secret', namespaced: true }]);
    const created = await deployer(kit).execute({ solutionId, preview: true });
    const shown = created.preview!.find((p) => p.kind === 'Secret')!;
    expect(shown.risk).to.equal('high');
    expect(JSON.stringify(created)).to.not.include('aHVudGVyMg==');
    kit.cluster.put({ ...secret, data: { password: 'b2xkLXZhbHVl' } });
    const changed = await deployer(kit).execute({ solutionId, preview: true });
    expect(changed.preview!.find((p) => p.kind === 'Secret')!.effect).to.equal('update');
    expect(JSON.stringify(changed)).to.not.include('aHVudGVyMg==').and.not.include('b2xkLXZhbHVl');
    expect(applies(kit)).to.deep.equal([]);
  });

  it('an image from a registry outside SVC_IMAGE_REGISTRIES is refused before anything is applied', async () => {
    const kit = deployKit();
    const solutionId = await generated(kit);
    const dep = await deployer(kit, NO_SECOND_APPROVER, { namespaces: [], kinds: [], imageRegistries: ['ghcr.io'] }).execute({ solutionId });
    expect(dep.status).to.equal('dry_run_refused');
    expect(dep.preview!.find((p) => p.kind === 'Deployment')!.refusal).to.deep.equal({
      reason: 'ImageRegistry',
      message: 'apps/Deployment shop/web: image nginx:1.25 is outside SVC_IMAGE_REGISTRIES (ghcr.io)',
    });
    expect(applies(kit)).to.deep.equal([]);
    expect(refusals).to.deep.equal(['allow-list']);
  });

  it('preview writes nothing and answers the diff against the live object; a stale planDigest (a live object changed since) is 409 and applies nothing', async () => {
    const kit = deployKit();
    const solutionId = await generated(kit);
    kit.cluster.put({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'shop', resourceVersion: '7' },
      spec: { selector: { app: 'web' }, ports: [{ port: 8080 }] },
    });
    const deploy = deployer(kit);
    const shown = await deploy.execute({ solutionId, preview: true });
    expect(shown.status).to.equal('previewed');
    expect(shown.planDigest).to.match(/^sha256:[0-9a-f]{64}$/);
    const svc = shown.preview!.find((p) => p.kind === 'Service')!;
    expect(svc).to.deep.include({ effect: 'update', resourceVersion: '7' });
    expect(svc.diff.map((d) => d.path)).to.include('spec.ports[0].port');
    expect(shown.applied.map((o) => o.outcome)).to.deep.equal(['not-run', 'not-run']);
    expect(applies(kit)).to.deep.equal([]);
    // the same plan previewed again has the same digest
    expect((await deploy.execute({ solutionId, preview: true })).planDigest).to.equal(shown.planDigest);
    kit.cluster.put({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'shop', resourceVersion: '8' },
      spec: { selector: { app: 'web' }, ports: [{ port: 9090 }] },
    });
    const stale = await rejection(deploy.execute({ solutionId, planDigest: shown.planDigest }));
    expect(stale).to.be.instanceOf(ConflictError);
    expect(stale.message).to.include('plan changed since it was read');
    expect(applies(kit)).to.deep.equal([]);
  });
});
