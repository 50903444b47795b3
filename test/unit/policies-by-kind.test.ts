import { expect } from 'chai';
import { MAX_STORED_POLICIES, OrgPolicySource, type PolicySource, type StoredPolicies } from '../../application/actions/policy-source.js';
import { Operate } from '../../application/operations/operate.js';
import { Remediate } from '../../application/remediation/remediate.js';
import { DependencyError } from '../../domain/errors.js';
import type { NamedPolicy } from '../../domain/orgdata/policy-constraint.js';
import { readOnlyView } from '../../domain/ports/cluster-reader.js';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { FakeLlm, type FakeReply } from '../fakes/fake-llm.js';
import { FakeSessionStore } from '../fakes/fake-session-store.js';
import { openSafety } from '../fakes/null-safety.js';
import { FakeClock } from '../support/fake-clock.js';
import { FakeEmbedder } from '../support/fake-embedder.js';
import { FakeVectorStore } from '../support/fake-vector-store.js';
import { deployment, planJson, scaleWeb } from '../support/operate-fixtures.js';
import { RecordingTracer } from '../support/recording-tracer.js';
import { analysisAnswer } from '../support/remediation-fixtures.js';
import { deployKit, deployManifestsOver, manifestsAnswer, recommendAnswer, webManifests } from '../support/deploy-kit.js';
import type { KubeObject } from '../../domain/cluster/kube-types.js';

const AT_MOST_TWO: NamedPolicy = {
  id: 'pol-replicas',
  description: 'Deployments run at most 2 replicas',
  constraints: [{ kind: 'Deployment', field: 'spec.replicas', maximum: 2 }],
};

/** A source whose search never finds the policy (the issue is about a ConfigMap) while the store holds it. */
class Source implements PolicySource {
  searched: string[] = [];
  constructor(public held: StoredPolicies) {}
  async forText(text: string): Promise<NamedPolicy[]> {
    this.searched.push(text);
    return [];
  }
  async stored(): Promise<StoredPolicies> {
    return this.held;
  }
}

function deps(script: FakeReply[], source: PolicySource) {
  const clock = new FakeClock();
  const cluster = new FakeCluster().put(deployment());
  const llm = new FakeLlm(script);
  const reader = readOnlyView(cluster);
  const common = { llm, reader, writer: cluster, sessions: new FakeSessionStore({ clock }), tracer: new RecordingTracer(), clock };
  return { cluster, common: { ...common, limits: { timeoutMs: 5000, maxTokens: 1_000_000 }, ...openSafety(cluster, { reader, policies: source }) } };
}

describe('policies by kind, not by meaning: every stored policy, at preview and again at execute time (fake ports)', () => {
  it('remediate about a ConfigMap: the model scales a Deployment to 9; the search found no policy, the stored one still refuses it', async () => {
    const source = new Source({ policies: [AT_MOST_TWO] });
    const { common, cluster } = deps(['the config is wrong', analysisAnswer({ actions: [{ ...scaleWeb(9), risk: 'low' }] })], source);
    const remediate = new Remediate(common);
    const view = await remediate.execute({ issue: 'ConfigMap app-config in x has a typo', mode: 'automatic', maxRiskLevel: 'high', confidenceThreshold: 0.5 });
    expect(source.searched).to.deep.equal(['ConfigMap app-config in x has a typo']);
    expect(view.actions[0].dryRun).to.deep.include({ accepted: false, reason: 'PolicyViolation' });
    expect(view.actions[0]?.dryRun)
      .to.have.property('message')
      .that.equals('Deployment web would break policy "Deployments run at most 2 replicas" (pol-replicas): spec.replicas must be at most 2, got 9');
    expect(view.automaticExecution?.executed).to.equal(false);
    expect(cluster.writes).to.deep.equal([]);
  });

  it('operate: a policy stored after the preview refuses the execution (checked on the execute-time dry run); nothing is written', async () => {
    const source = new Source({ policies: [] });
    const { common, cluster } = deps(['read', planJson([scaleWeb(9)])], source);
    const operate = new Operate(common);
    const r = await operate.execute({ intent: 'scale web to 9' });
    expect(r.proposal.actions[0].dryRun.accepted).to.equal(true);
    source.held = { policies: [AT_MOST_TWO] };
    const done = await operate.execute({ sessionId: r.sessionId, executeChoice: 1 });
    expect(done.status).to.equal('dry_run_refused');
    expect(done.execution?.outcome?.refused).to.deep.include({ action: 1, reason: 'PolicyViolation' });
    expect(done.execution?.outcome?.refused?.message).to.contain('would break policy "Deployments run at most 2 replicas" (pol-replicas)');
    expect(cluster.writes).to.deep.equal([]);
  });

  it('remediate: a policy stored after the preview refuses the approved execution; nothing is written', async () => {
    const source = new Source({ policies: [] });
    const { common, cluster } = deps(['web is slow', analysisAnswer({ actions: [{ ...scaleWeb(9), risk: 'low' }] })], source);
    const remediate = new Remediate(common);
    const view = await remediate.execute({ issue: 'web is slow' });
    expect(view.actions?.[0]?.dryRun?.accepted).to.equal(true);
    source.held = { policies: [AT_MOST_TWO] };
    const done = await remediate.execute({ sessionId: view.sessionId, executeChoice: 1 });
    expect(done.status).to.equal('not_executed');
    expect(done.message).to.match(/^Nothing was applied: svc refused action 1 \(.*\): Deployment web would break policy "Deployments run at most 2 replicas"/);
    expect(cluster.writes).to.deep.equal([]);
  });

  it('policies that cannot be read refuse the write (PoliciesUnreadable), at preview and at execute time', async () => {
    const source = new Source({ policies: [], unreadable: 'the policies could not be read (store down)' });
    const { common, cluster } = deps(['read', planJson([scaleWeb(2)])], source);
    const operate = new Operate(common);
    const r = await operate.execute({ intent: 'scale web to 2' });
    expect(r.proposal.actions[0].dryRun).to.deep.include({
      accepted: false,
      reason: 'PoliciesUnreadable',
      message: "svc writes nothing it cannot check against the organisation's policies: the policies could not be read (store down)",
    });
    expect(r.proposal.executable).to.equal(false);
    expect(cluster.writes).to.deep.equal([]);
  });
});

describe('deployManifests checks every stored policy on what each dry run returns (fakes)', () => {
  const IMAGES: NamedPolicy = {
    id: 'pol-images',
    description: 'Images come from the nginx repository',
    constraints: [{ kind: 'Deployment', field: 'spec.template.spec.containers[].image', pattern: 'nginx:.*' }],
  };

  async function generated(objects: KubeObject[]) {
    const kit = deployKit();
    kit.llm.push(recommendAnswer());
    const solutionId = (await kit.recommend.execute({ intent: 'an nginx web server for the shop front end' })).solutions[0].solutionId;
    await kit.choose.execute({ solutionId });
    await kit.answer.execute({ solutionId, stage: 'required', answers: { name: 'web', namespace: 'shop', 'deployment-image': 'nginx:1.25' } });
    kit.llm.push(manifestsAnswer(objects));
    await kit.generate.execute({ solutionId });
    return { kit, solutionId };
  }

  it('an image rule written for containers refuses an initContainer from elsewhere: nothing is applied, and the answer says which policy', async () => {
    const [deployment, service] = webManifests();
    const spec = (deployment.spec as { template: { spec: Record<string, unknown> } }).template.spec;
    spec.initContainers = [{ name: 'setup', image: 'evil.example/miner:latest' }];
    const { kit, solutionId } = await generated([deployment, service]);
    const source = new Source({ policies: [IMAGES] });
    const deploy = deployManifestsOver(kit, { policies: source });
    const r = await deploy.execute({ solutionId });
    expect(r.status).to.equal('dry_run_refused');
    expect(r.applied.map((o) => [o.kind, o.outcome])).to.deep.equal([
      ['Service', 'not-run'],
      ['Deployment', 'refused'],
    ]);
    expect(r.message).to.equal(
      'Nothing was applied: svc refused Deployment web: PolicyViolation: Deployment web would break policy "Images come from the nginx repository" (pol-images): spec.template.spec.initContainers[setup].image must match nginx:.*, got "evil.example/miner:latest"',
    );
    expect(kit.cluster.writes.filter((w) => w.method === 'apply')).to.deep.equal([]);
  });

  it('the same manifests within the policy deploy', async () => {
    const { kit, solutionId } = await generated(webManifests());
    const deploy = deployManifestsOver(kit, { policies: new Source({ policies: [IMAGES] }) });
    const r = await deploy.execute({ solutionId, timeout: 1 });
    expect(r.applied.map((o) => o.outcome)).to.deep.equal(['created', 'created']);
  });
});

describe('OrgPolicySource.stored: every stored policy, whatever the search returns', () => {
  const point = (id: string, description: string, constraints: unknown[]) => ({ id, vector: [1, 2, 3, 4], payload: { description, constraints } });

  it('lists every policy (not the top 5 by meaning), skipping what does not parse; the search still finds by meaning', async () => {
    const store = new FakeVectorStore();
    await store.ensureCollection('policies', { dimension: 4, distance: 'cosine' });
    const points = Array.from({ length: 12 }, (_, i) => point(`p-${i}`, `policy ${i}`, [{ kind: 'Deployment', field: 'spec.replicas', maximum: i }]));
    await store.upsert('policies', [...points, { id: 'junk', vector: [1, 1, 1, 1], payload: { nothing: true } }]);
    const source = new OrgPolicySource(store, new FakeEmbedder());
    const all = await source.stored();
    expect(all.unreadable).to.equal(undefined);
    expect(all.policies.map((p) => p.id).sort()).to.deep.equal(points.map((p) => p.id).sort());
    expect((await source.forText('anything')).length).to.be.at.most(5);
  });

  it('a failing store, or one holding more than svc checks, says so instead of giving a partial list as complete', async () => {
    const failing = new FakeVectorStore();
    failing.failWith = new DependencyError('qdrant', 'connection refused');
    expect((await new OrgPolicySource(failing, new FakeEmbedder()).stored()).unreadable).to.match(/^the policies could not be read \(.*connection refused/);
    const full = new FakeVectorStore();
    await full.ensureCollection('policies', { dimension: 4, distance: 'cosine' });
    const many = Array.from({ length: MAX_STORED_POLICIES + 1 }, (_, i) =>
      point(`p-${i}`, `policy ${i}`, [{ kind: '*', field: 'metadata.name', pattern: '.*' }]),
    );
    for (let i = 0; i < many.length; i += 500) await full.upsert('policies', many.slice(i, i + 500));
    const over = await new OrgPolicySource(full, new FakeEmbedder()).stored();
    expect(over.unreadable).to.equal(`more than ${MAX_STORED_POLICIES} policies are stored; svc checks at most ${MAX_STORED_POLICIES}`);
  });
});
