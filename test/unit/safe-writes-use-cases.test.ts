import { expect } from 'chai';
import { Operate } from '../../application/operations/operate.js';
import { Remediate } from '../../application/remediation/remediate.js';
import type { PolicySource } from '../../application/actions/policy-source.js';
import type { NamedPolicy } from '../../domain/orgdata/policy-constraint.js';
import { readOnlyView } from '../../domain/ports/cluster-reader.js';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { FakeLlm, type FakeReply } from '../fakes/fake-llm.js';
import { FakeSessionStore } from '../fakes/fake-session-store.js';
import { openSafety } from '../fakes/null-safety.js';
import { FakeClock } from '../support/fake-clock.js';
import { deployment, planJson, scaleWeb } from '../support/operate-fixtures.js';
import { RecordingTracer } from '../support/recording-tracer.js';
import { rejection } from '../support/rejection.js';
import { analysisAnswer } from '../support/remediation-fixtures.js';

const MAX_TEN: NamedPolicy = {
  id: 'pol-1',
  description: 'Deployments run at most 10 replicas',
  constraints: [{ kind: 'Deployment', field: 'spec.replicas', maximum: 10 }],
};
const policies: PolicySource = { forText: async () => [MAX_TEN], stored: async () => ({ policies: [MAX_TEN] }) };
const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: 'x', resourceVersion: '3' }, data: { password: 'cGFzcw==' } };

function deps(script: FakeReply[]) {
  const clock = new FakeClock();
  const cluster = new FakeCluster().put(deployment(), secret);
  const llm = new FakeLlm(script);
  const reader = readOnlyView(cluster);
  const common = { llm, reader, writer: cluster, sessions: new FakeSessionStore({ clock }), tracer: new RecordingTracer(), clock };
  return { cluster, llm, common: { ...common, limits: { timeoutMs: 5000, maxTokens: 1_000_000 }, ...openSafety(cluster, { reader, policies }) } };
}

describe('safe writes in the use cases: one floor and one policy check for operate and remediate (fake ports)', () => {
  it('operate: a Secret patch labelled low is high, and why; the plan risk follows', async () => {
    const label = {
      type: 'patch',
      target: { apiVersion: 'v1', kind: 'Secret', name: 'db', namespace: 'x' },
      patch: { metadata: { labels: { rotated: 'yes' } } },
      description: 'Label the secret',
      risk: 'low',
      rationale: 'asked',
    };
    const { common } = deps(['read', planJson([label], { risk: 'low' })]);
    const r = await new Operate(common).execute({ intent: 'label the db secret' });
    expect(r.proposal.actions[0]).to.deep.include({
      risk: 'high',
      riskReasons: ['Secret is a sensitive kind: credentials and identities'],
    });
    expect(r.proposal.risk).to.equal('high');
  });

  it('operate: a stored "replicas at most 10" refuses "scale to 50", naming the policy; the model was shown the policy', async () => {
    const { common, llm, cluster } = deps(['read', planJson([scaleWeb(50)])]);
    const operate = new Operate(common);
    const r = await operate.execute({ intent: 'scale web to 50' });
    expect(r.proposal.executable).to.equal(false);
    expect(r.proposal.actions[0].dryRun).to.deep.equal({
      accepted: false,
      reason: 'PolicyViolation',
      message: 'Deployment web would break policy "Deployments run at most 10 replicas" (pol-1): spec.replicas must be at most 10, got 50',
      causes: [],
    });
    expect(llm.calls[0].messages[1].content).to.contain('<data name="organisation_policies">').and.contain('Deployments run at most 10 replicas');
    const refused = await rejection(operate.execute({ sessionId: r.sessionId, executeChoice: 1 }));
    expect(refused.message).to.contain('PolicyViolation');
    expect(cluster.writes).to.deep.equal([]);
  });

  it('remediate: the same policy refuses the same scale, and the model saw the policy in the investigation and the analysis', async () => {
    const scale = { ...scaleWeb(50), risk: 'low' };
    const { common, llm, cluster } = deps(['web is overloaded', analysisAnswer({ actions: [scale] })]);
    const remediate = new Remediate(common);
    const view = await remediate.execute({ issue: 'web in namespace x is overloaded', mode: 'automatic', maxRiskLevel: 'high', confidenceThreshold: 0.5 });
    expect(view.actions[0].dryRun).to.deep.include({ accepted: false, reason: 'PolicyViolation' });
    expect(view.automaticExecution?.executed).to.equal(false);
    for (const call of llm.calls) expect(JSON.stringify(call.messages)).to.contain('Deployments run at most 10 replicas');
    const refused = await rejection(remediate.execute({ sessionId: view.sessionId, executeChoice: 1 }));
    expect(refused.message).to.contain('would break policy "Deployments run at most 10 replicas" (pol-1)');
    expect(cluster.writes).to.deep.equal([]);
  });
});
