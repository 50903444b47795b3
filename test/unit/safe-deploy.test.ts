import { expect } from 'chai';
import { DeployManifests } from '../../application/deployment/deploy-manifests.js';
import { SolutionSessions } from '../../application/deployment/solution-sessions.js';
import { ExecutionError, ValidationError } from '../../domain/errors.js';
import { rejection } from '../support/rejection.js';
import { availableAtOnce, deployKit, manifestsAnswer, recommendAnswer, webManifests } from '../support/deploy-kit.js';

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
    const sessions = new SolutionSessions(kit.store);
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
    const deploy = new DeployManifests(kit.cluster, kit.cluster, new SolutionSessions(kit.store), kit.clock, 1000, { namespaces: ['prod'], kinds: [] });
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
    const stored = (await new SolutionSessions(kit.store).load(solutionId)).state.deployment;
    expect(stored?.ready).to.equal(false);
    expect(stored?.outcomes?.map((o) => [o.kind, o.outcome])).to.deep.equal([
      ['Service', 'created'],
      ['Deployment', 'failed'],
    ]);
  });

  it("a deploy that works answers each object with its outcome and svc's risk (a new workload starts pods: medium)", async () => {
    const kit = deployKit();
    kit.cluster.onWrite = availableAtOnce;
    const solutionId = await generated(kit);
    const dep = await kit.deploy.execute({ solutionId, timeout: 5 });
    expect(dep.status).to.equal('ready');
    expect(dep.applied.map((o) => [o.kind, o.outcome, o.risk])).to.deep.equal([
      ['Service', 'created', 'low'],
      ['Deployment', 'created', 'medium'],
    ]);
    const again = await kit.deploy.execute({ solutionId, timeout: 5 });
    expect(again.applied.map((o) => o.outcome)).to.deep.equal(['unchanged', 'unchanged']);
  });
});
