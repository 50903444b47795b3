import { expect } from 'chai';
import { OPERATE_MAX_MODEL_CALLS, PlanOperation } from '../../../application/operations/plan-operation.js';
import { DependencyError, type DomainError } from '../../../domain/errors.js';
import { FakeCluster } from '../../fakes/fake-cluster.js';
import { FakeLlm, type FakeReply } from '../../fakes/fake-llm.js';
import { deployment, planJson, scaleWeb } from '../../support/operate-fixtures.js';
import { RecordingTracer } from '../../support/recording-tracer.js';
import { rejection } from '../../support/rejection.js';

const getWeb = { toolCalls: [{ name: 'get_resource', arguments: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' } }] };
const INPUT = { intent: 'scale web in x to 5 replicas', refinements: [] };

/** PlanOperation over a cluster holding `deployment()` and a model answering `script` (then `fallback`). */
function planner(script: FakeReply[], fallback?: FakeReply) {
  const cluster = new FakeCluster().put(deployment());
  const llm = new FakeLlm(script, fallback);
  return { cluster, llm, plan: new PlanOperation(llm, cluster, new RecordingTracer(), { timeoutMs: 5000, maxTokens: 1_000_000 }) };
}
const lastPrompt = (llm: FakeLlm) => JSON.stringify(llm.calls.at(-1)!.messages);

describe('PlanOperation: a read-only investigation, then a plan checked against its schema', () => {
  it('reads the live state with the read-only functions, then answers with the checked plan and how the investigation went; nothing is written', async () => {
    const { cluster, llm, plan } = planner([getWeb, 'web runs 2 replicas.', planJson([scaleWeb(5)])]);
    const planned = await plan.execute(INPUT);
    expect(planned.plan).to.deep.include({ summary: 'Scale web in x from 2 to 5 replicas.', risk: 'low' });
    expect(planned.plan.actions).to.have.length(1);
    expect(planned.investigation).to.deep.equal({ modelCalls: 3, functionCalls: 1, stoppedBy: 'final-answer' });
    expect(JSON.stringify(llm.calls[0]!.messages)).to.include('scale web in x to 5 replicas');
    expect(lastPrompt(llm)).not.to.include('cut short');
    expect(cluster.writes).to.deep.equal([]);
  });

  it('an investigation that reaches the call limit keeps two calls for the plan, which is asked for with a note that it was cut short', async () => {
    const { llm, plan } = planner([...Array.from({ length: OPERATE_MAX_MODEL_CALLS - 2 }, () => getWeb), planJson([])], getWeb);
    const planned = await plan.execute(INPUT);
    expect(planned.investigation.stoppedBy).to.equal('model-calls');
    expect(planned.investigation.modelCalls).to.equal(OPERATE_MAX_MODEL_CALLS - 1);
    expect(lastPrompt(llm)).to.include('The investigation was cut short').and.include('give no actions if that is not enough');
  });

  it('a provider that fails after the investigation found something is said so in the note, and the plan is still asked for', async () => {
    const { llm, plan } = planner([getWeb, new DependencyError('llm', 'HTTP 503'), planJson([])]);
    const planned = await plan.execute(INPUT);
    expect(planned.investigation).to.deep.equal({ modelCalls: 3, functionCalls: 1, stoppedBy: 'provider-error' });
    expect(lastPrompt(llm)).to.include('the AI provider failed');
  });

  it("a provider that fails on the first call is the caller's error: no plan is asked for from nothing", async () => {
    const { llm, plan } = planner([new DependencyError('llm', 'HTTP 503'), planJson([])]);
    expect((await rejection(plan.execute(INPUT))).message).to.include('HTTP 503');
    expect(llm.calls).to.have.length(1);
  });

  it('an answer that breaks the schema twice is an EXECUTION_ERROR, within the limit of model calls', async () => {
    const { llm, plan } = planner(['nothing to read', '{"summary":"x"}', 'not json at all']);
    const err = await rejection<DomainError>(plan.execute(INPUT));
    expect(err.code).to.equal('EXECUTION_ERROR');
    expect(llm.calls).to.have.length(3);
  });
});
