import { expect } from 'chai';
import { Remediate, REMEDIATE_MODEL_CALLS } from '../../application/remediation/remediate.js';
import { DependencyError, ValidationError, type DomainError } from '../../domain/errors.js';
import { readOnlyView } from '../../domain/ports/cluster-reader.js';
import type { ToolInput } from '../../domain/tools/tool-definitions.js';
import { UnconfiguredClusterClient } from '../../infrastructure/not-configured/unconfigured-cluster-client.js';
import { UnconfiguredLlmProvider } from '../../infrastructure/not-configured/unconfigured-llm-provider.js';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { FakeLlm, type FakeReply } from '../fakes/fake-llm.js';
import { FakeSessionStore } from '../fakes/fake-session-store.js';
import { openSafety } from '../fakes/null-safety.js';
import { FakeClock } from '../support/fake-clock.js';
import { RecordingTracer } from '../support/recording-tracer.js';
import { rejection } from '../support/rejection.js';
import { analysisAnswer, containerPatch, verifiedAnswer, WEB, webDeployment } from '../support/remediation-fixtures.js';

const WRITE_METHODS = ['apply', 'patch', 'delete', 'dryRunApply', 'dryRunPatch', 'dryRunDelete', 'waitFor'];
const investigation: FakeReply[] = [
  { toolCalls: [{ name: 'list_resources', arguments: { apiVersion: 'v1', kind: 'Pod', namespace: 'x' } }] },
  { toolCalls: [{ name: 'describe_resource', arguments: WEB }] },
  'The image nginx:9.9-missing does not exist; set a tag that does.',
];

function setup(llm: FakeLlm | UnconfiguredLlmProvider = new FakeLlm(), limits = { timeoutMs: 5000, maxTokens: 1_000_000 }) {
  const clock = new FakeClock();
  const cluster = new FakeCluster().put(webDeployment('nginx:9.9-missing'));
  const sessions = new FakeSessionStore({ clock });
  const tracer = new RecordingTracer();
  const reader = readOnlyView(cluster);
  const remediate = new Remediate({ llm, reader, writer: cluster, sessions, tracer, clock, limits, ...openSafety(cluster, { reader }) });
  const run = (input: ToolInput<'remediate'>) => remediate.execute(input);
  return { clock, cluster, sessions, tracer, remediate, run, llm };
}

describe('Remediate (use case on fake ports)', () => {
  it('investigates read-only, stores the analysis and waits for approval in manual mode', async () => {
    const { run, cluster, sessions, llm } = setup(new FakeLlm([...investigation, analysisAnswer()]));
    const view = await run({ issue: 'web in namespace x does not start' });
    expect(view.status).to.equal('awaiting_approval');
    expect(view.sessionId).to.match(/^rem_[0-9a-f]{32}$/);
    expect(view).to.include({ confidence: 0.92 });
    expect(view.rootCause).to.contain('nginx:9.9-missing');
    expect(view.evidence).to.have.length(2);
    // the model said low; a pod template change replaces pods: svc says medium, and why, from the dry-run diff
    expect(view.actions[0]).to.deep.include({
      action: 1,
      type: 'patch',
      risk: 'medium',
      riskReasons: ['changes the pod spec at spec.template.spec: pods are replaced', 'image nginx:9.9-missing -> nginx:1.27'],
    });
    expect(view.actions[0]).to.deep.include({ effect: 'update', dryRun: { accepted: true } });
    expect(view.actions[0].diff).to.deep.equal([{ path: 'spec.template.spec.containers[name=app].image', from: 'nginx:9.9-missing', to: 'nginx:1.27' }]);
    expect(view.actions[0].kubectl).to.equal(
      `kubectl patch deployment.v1.apps/web -n x --type=strategic -p '{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.27"}]}}}}'`,
    );
    expect(view.investigation).to.deep.include({ modelCalls: 4, stoppedBy: 'final-answer', functionCallCount: 2 });
    expect(view.investigation.functionsCalled.map((f) => f.name)).to.deep.equal(['list_resources', 'describe_resource']);
    expect(view.nextStep).to.contain(`{"sessionId":"${view.sessionId}","executeChoice":1}`).and.contain('"executeChoice":2');
    // the proposal's preview is a dry run: nothing persisted
    expect(cluster.calls.filter((c) => WRITE_METHODS.includes(c))).to.deep.equal(['dryRunPatch']);
    expect(cluster.writes).to.deep.equal([]);
    expect(sessions.records.size).to.equal(1);
    // the analysis is a fresh [system, user] conversation carrying the investigation as data, with the schema as response_format
    const ask = (llm as FakeLlm).calls[3];
    expect(ask.messages.map((m) => m.role)).to.deep.equal(['system', 'user']);
    expect(ask.messages[1].content).to.contain('<data name="investigation">\n[call 1] list_resources').and.contain('[call 2] describe_resource');
    expect(ask.messages[1].content).to.contain('<data name="your_findings">\nThe image nginx:9.9-missing does not exist');
    expect(ask.options.responseFormat).to.have.nested.property('jsonSchema.name', 'remediation_analysis');
    expect(ask.options.tools).to.equal(undefined);
  });

  it('executes on executeChoice 1: dry run first, then the patch, the rollout wait, then a follow-up check', async () => {
    const { run, cluster } = setup(
      new FakeLlm([...investigation, analysisAnswer(), { toolCalls: [{ name: 'get_resource', arguments: WEB }] }, verifiedAnswer()]),
    );
    const started = await run({ issue: 'web does not start' });
    const done = await run({ sessionId: started.sessionId, executeChoice: 1 });
    expect(done.status).to.equal('executed');
    // the preview at proposal time, then the dry run and the patch at execution, then the rollout wait
    expect(cluster.calls.filter((c) => WRITE_METHODS.includes(c))).to.deep.equal(['dryRunPatch', 'dryRunPatch', 'patch', 'waitFor']);
    expect(cluster.writes).to.have.length(1);
    // the fake has no controller: the rollout never finishes, and the answer says so before the check's verdict
    expect(done.execution?.outcome?.rollouts?.map((r) => r.state)).to.deep.equal(['timed-out']);
    expect(done.message).to.match(/Not rolled out: Deployment x\/web: timed-out \(not rolled out within \d+ s: 0 of 1 new replicas updated\)/);
    expect(done.execution?.outcome?.report.outcomes).to.deep.equal([
      { action: 1, description: 'Set the image of web to nginx:1.27', kubectl: done.actions[0].kubectl, status: 'applied' },
    ]);
    expect(done.verification).to.deep.include({ resolved: true, summary: 'web runs nginx:1.27 and its pod is ready' });
    expect(done.verification?.run.modelCalls).to.equal(2);
    expect(done.message).to.contain('Applied 1 action(s)').and.contain('resolved');
    const look = await run({ sessionId: started.sessionId });
    expect(look.status).to.equal('executed');
  });

  it('answers a second executeChoice, also two at once, with a 400 carrying the earlier outcome; applies once', async () => {
    const { run, cluster } = setup(new FakeLlm([...investigation, analysisAnswer()], verifiedAnswer()));
    const started = await run({ issue: 'web does not start' });
    const both = await Promise.allSettled([run({ sessionId: started.sessionId, executeChoice: 1 }), run({ sessionId: started.sessionId, executeChoice: 1 })]);
    expect(both.map((r) => r.status).sort()).to.deep.equal(['fulfilled', 'rejected']);
    expect(cluster.writes).to.have.length(1);
    const again = await rejection<ValidationError>(run({ sessionId: started.sessionId, executeChoice: 1 }));
    expect(again).to.be.instanceOf(ValidationError);
    expect(again.message).to.contain('already executed');
    expect(again.details).to.have.nested.property('execution.outcome.report.dryRunPassed', true);
    expect(cluster.writes).to.have.length(1);
  });

  it('stops on executeChoice 2 with nothing applied; execution after a stop is refused', async () => {
    const { run, cluster } = setup(new FakeLlm([...investigation, analysisAnswer()]));
    const started = await run({ issue: 'web does not start' });
    const stopped = await run({ sessionId: started.sessionId, executeChoice: 2 });
    expect(stopped.status).to.equal('stopped');
    expect(stopped.message).to.contain('nothing was applied');
    expect((await run({ sessionId: started.sessionId, executeChoice: 2 })).status).to.equal('stopped');
    const refused = await rejection<ValidationError>(run({ sessionId: started.sessionId, executeChoice: 1 }));
    expect(refused.message).to.contain('was stopped');
    expect(cluster.calls.filter((c) => WRITE_METHODS.includes(c))).to.deep.equal(['dryRunPatch']);
    expect(cluster.writes).to.deep.equal([]);
  });

  it('a dry run refused at proposal time shows on the proposal, and executing it is refused: nothing applied', async () => {
    const two = analysisAnswer({
      actions: [containerPatch('nginx:1.27'), { type: 'scale', target: WEB, replicas: 2, description: 'Scale web to 2', risk: 'low', rationale: 'headroom' }],
    });
    const { run, cluster } = setup(new FakeLlm([...investigation, two]));
    cluster.rejectDryRun = (w) =>
      (w.body as { spec?: { replicas?: number } }).spec?.replicas === 2
        ? { accepted: false, reason: 'Forbidden', message: 'exceeded quota: pods', causes: [] }
        : undefined;
    const started = await run({ issue: 'web does not start' });
    expect(started.actions[1].dryRun).to.deep.equal({ accepted: false, reason: 'Forbidden', message: 'exceeded quota: pods', causes: [] });
    expect(started.message).to.contain('cannot be executed: action 2 (Scale web to 2) was refused (Forbidden): exceeded quota: pods');
    const refused = await rejection<ValidationError>(run({ sessionId: started.sessionId, executeChoice: 1 }));
    expect(refused.message).to.contain('cannot be executed: action 2 (Scale web to 2) was refused (Forbidden): exceeded quota: pods');
    expect(cluster.writes).to.deep.equal([]);
  });

  it('a dry run refused at execution (the object changed meanwhile) applies nothing and names the action and the server message', async () => {
    const two = analysisAnswer({
      actions: [containerPatch('nginx:1.27'), { type: 'scale', target: WEB, replicas: 2, description: 'Scale web to 2', risk: 'low', rationale: 'headroom' }],
    });
    const { run, cluster } = setup(new FakeLlm([...investigation, two]));
    const started = await run({ issue: 'web does not start' });
    cluster.rejectDryRun = (w) =>
      (w.body as { spec?: { replicas?: number } }).spec?.replicas === 2
        ? { accepted: false, reason: 'Forbidden', message: 'exceeded quota: pods', causes: [] }
        : undefined;
    const done = await run({ sessionId: started.sessionId, executeChoice: 1 });
    expect(done.status).to.equal('not_executed');
    expect(done.message).to.contain('action 2 (Scale web to 2)').and.contain('exceeded quota: pods');
    expect(cluster.writes).to.deep.equal([]);
    expect(done.verification).to.equal(undefined);
  });

  describe('automatic mode', () => {
    it('executes when the confidence reaches the threshold and every risk is within maxRiskLevel', async () => {
      const { run, cluster } = setup(new FakeLlm([...investigation, analysisAnswer(), verifiedAnswer()]));
      const view = await run({ issue: 'web in namespace x does not start', mode: 'automatic', confidenceThreshold: 0.9, maxRiskLevel: 'medium' });
      expect(view.status).to.equal('executed');
      expect(view.automaticExecution).to.deep.include({ executed: true });
      expect(cluster.writes).to.have.length(1);
      expect(view.verification?.resolved).to.equal(true);
    });

    it('refuses a high-risk action and says why; a person may still approve it', async () => {
      const { run, cluster } = setup(new FakeLlm([...investigation, analysisAnswer({ actions: [containerPatch('nginx:1.27', 'high')] })], verifiedAnswer()));
      const view = await run({ issue: 'web in namespace x does not start', mode: 'automatic', maxRiskLevel: 'medium' });
      expect(view.status).to.equal('awaiting_approval');
      expect(view.automaticExecution?.executed).to.equal(false);
      expect(view.automaticExecution?.reason).to.contain('exceed maxRiskLevel medium');
      expect(view.message).to.contain('Automatic mode did not act');
      expect(cluster.writes).to.deep.equal([]);
      expect((await run({ sessionId: view.sessionId, executeChoice: 1 })).status).to.equal('executed');
    });

    it('answers with the session (execution_failed and why) when the execution itself fails', async () => {
      const { run, cluster } = setup(new FakeLlm([...investigation, analysisAnswer()]));
      cluster.patch = async () => {
        throw new DependencyError('kubernetes', 'Kubernetes API at https://k8s:6443 is unreachable: ECONNREFUSED');
      };
      const view = await run({ issue: 'web in namespace x does not start', mode: 'automatic', maxRiskLevel: 'medium' });
      expect(view.status).to.equal('execution_failed');
      expect(view.execution?.outcome?.report.outcomes[0]).to.deep.include({
        status: 'failed',
        message: 'Kubernetes API at https://k8s:6443 is unreachable: ECONNREFUSED',
      });
      expect(view.message).to.contain('unreachable');
      expect(cluster.writes).to.deep.equal([]);
      expect((await rejection(run({ sessionId: view.sessionId, executeChoice: 1 }))).message).to.contain('already executed (done');
    });

    it("an API server that fails during the proposal's preview: the proposal says so and nothing runs", async () => {
      const { run, cluster } = setup(new FakeLlm([...investigation, analysisAnswer()]));
      cluster.dryRunPatch = async () => {
        throw new DependencyError('kubernetes', 'Kubernetes API at https://k8s:6443 is unreachable: ECONNREFUSED');
      };
      const view = await run({ issue: 'web in namespace x does not start', mode: 'automatic', maxRiskLevel: 'medium' });
      expect(view.status).to.equal('awaiting_approval');
      expect(view.actions[0].dryRun).to.deep.include({ accepted: false, reason: 'Unavailable' });
      expect(view.automaticExecution?.reason).to.equal('1 action(s) were refused before execution: Set the image of web to nginx:1.27');
      expect(cluster.writes).to.deep.equal([]);
    });

    it('does not act below the confidence threshold', async () => {
      const { run, cluster } = setup(new FakeLlm([...investigation, analysisAnswer({ confidence: 0.5 })]));
      const view = await run({ issue: 'web in namespace x does not start', mode: 'automatic' });
      expect(view.automaticExecution?.reason).to.equal('confidence 0.5 is below the threshold 0.8');
      expect(cluster.writes).to.deep.equal([]);
    });

    it("raises a model's low label to svc's floor: deleting a Deployment is high risk", async () => {
      const del = { type: 'delete', target: WEB, description: 'Delete web', risk: 'low', rationale: 'start over' };
      const { run, cluster } = setup(new FakeLlm([...investigation, analysisAnswer({ actions: [del] })]));
      const view = await run({ issue: 'web in namespace x does not start', mode: 'automatic', maxRiskLevel: 'medium' });
      expect(view.actions[0].risk).to.equal('high');
      expect(view.automaticExecution?.executed).to.equal(false);
      expect(cluster.writes).to.deep.equal([]);
    });
  });

  describe('budgets and a misbehaving model', () => {
    it(`caps the investigation at ${REMEDIATE_MODEL_CALLS} model calls, keeping two for the analysis`, async () => {
      const llm = new FakeLlm([], (_m, o) =>
        o.tools ? { toolCalls: [{ name: 'list_resources', arguments: { apiVersion: 'v1', kind: 'Pod' } }] } : analysisAnswer(),
      );
      const { run } = setup(llm);
      const view = await run({ issue: 'web does not start' });
      expect(view.status).to.equal('awaiting_approval');
      expect(view.investigation).to.deep.include({ stoppedBy: 'model-calls', modelCalls: 24, functionCallCount: 23 });
      expect(view.investigation.limit).to.equal('the limit of 25 model calls was reached');
      expect(llm.calls).to.have.length(24);
      const note = llm.calls[23].messages[1].content;
      expect(note).to.contain('svc ended the investigation: the limit of 25 model calls was reached');
    });

    it('answers a partial result naming the limit when the tokens run out before an analysis', async () => {
      const llm = new FakeLlm([{ toolCalls: [{ name: 'list_resources', arguments: { apiVersion: 'v1', kind: 'Pod' } }], text: 'pods look stuck' }], {
        toolCalls: [{ name: 'get_resource', arguments: WEB }],
      });
      const { run, sessions } = setup(llm, { timeoutMs: 5000, maxTokens: 1000 });
      const view = await run({ issue: 'web does not start' });
      expect(view.status).to.equal('investigation_incomplete');
      expect(view.investigation.stoppedBy).to.equal('tokens');
      expect(view.investigation.limit).to.contain('the limit of 1000 tokens was reached');
      expect(view.actions).to.deep.equal([]);
      expect(view.message).to.contain('ended before a usable analysis');
      expect(sessions.records.size).to.equal(1);
      expect((await rejection(run({ sessionId: view.sessionId, executeChoice: 1 }))).message).to.contain('nothing to execute');
    });

    it('feeds schema errors back once, then uses the fixed answer', async () => {
      const bad = analysisAnswer({ actions: [{ type: 'exec', command: 'kubectl delete ns x', description: 'x', risk: 'low', rationale: 'y' }] });
      const llm = new FakeLlm([...investigation, bad, analysisAnswer()]);
      const { run } = setup(llm);
      expect((await run({ issue: 'web does not start' })).status).to.equal('awaiting_approval');
      expect(llm.calls[4].messages.at(-1)!.content).to.contain('could not be used').and.contain('actions.0');
    });

    it('fails with EXECUTION_ERROR and a short excerpt after two unusable answers; no session is stored', async () => {
      const { run, sessions } = setup(new FakeLlm([...investigation, 'I think it is DNS. '.repeat(100), 'still not JSON']));
      const e = await rejection<DomainError>(run({ issue: 'web does not start' }));
      expect(e.code).to.equal('EXECUTION_ERROR');
      expect(e.message).to.contain('unusable after one retry');
      expect(e.message.length).to.be.below(600);
      expect(sessions.records.size).to.equal(0);
    });
  });

  describe('input and configuration', () => {
    it('refuses a missing issue, executeChoice without sessionId, and start parameters with a sessionId', async () => {
      const { run } = setup();
      expect((await rejection(run({}))).message).to.contain('issue is required');
      expect((await rejection(run({ executeChoice: 1 }))).message).to.contain('send it with the sessionId');
      expect((await rejection(run({ sessionId: 'rem_0123456789abcdef0123456789abcdef', issue: 'x' }))).message).to.contain('only apply when starting');
    });

    it('answers 400 for an unknown, expired or malformed session, naming the call that starts a new one', async () => {
      const { run, clock } = setup(new FakeLlm([...investigation, analysisAnswer()]));
      const unknown = await rejection<ValidationError>(run({ sessionId: 'rem_0123456789abcdef0123456789abcdef', executeChoice: 1 }));
      expect(unknown).to.be.instanceOf(ValidationError);
      expect(unknown.message).to.equal(
        'Unknown or expired session: rem_0123456789abcdef0123456789abcdef. Start a new investigation with remediate and an issue.',
      );
      expect((await rejection(run({ sessionId: '../../etc/passwd' }))).message).to.contain('(malformed id)');
      const started = await run({ issue: 'web does not start' });
      clock.advance(86_400_001);
      expect((await rejection(run({ sessionId: started.sessionId }))).message).to.contain('Unknown or expired session');
    });

    it('fails before any session with no AI provider or no cluster, saying what to set', async () => {
      const noAi = setup(new UnconfiguredLlmProvider());
      const e1 = await rejection<DomainError>(noAi.run({ issue: 'web does not start' }));
      expect(e1.code).to.equal('EXECUTION_ERROR');
      expect(e1.message).to.contain('OPENAI_API_KEY');
      expect(noAi.sessions.records.size).to.equal(0);
      const clock = new FakeClock();
      const sessions = new FakeSessionStore({ clock });
      const none = new UnconfiguredClusterClient();
      const noCluster = new Remediate({
        llm: new FakeLlm(),
        reader: none,
        writer: none,
        sessions,
        tracer: new RecordingTracer(),
        clock,
        limits: { timeoutMs: 5000, maxTokens: 1000 },
        ...openSafety(none),
      });
      const e2 = await rejection<DomainError>(noCluster.execute({ issue: 'web does not start' }));
      expect(e2.message).to.contain('KUBECONFIG');
      expect(sessions.records.size).to.equal(0);
    });
  });

  it('runs the investigation inside a tool_loop span', async () => {
    const { run, tracer } = setup(new FakeLlm([...investigation, analysisAnswer()]));
    await tracer.inSpan('execute_tool remediate', {}, () => run({ issue: 'web does not start' }));
    const loop = tracer.spans.find((s) => s.name === 'tool_loop fake-model');
    expect(loop?.parent?.name).to.equal('execute_tool remediate');
    expect(loop?.attributes['svc.tool_loop.calls']).to.equal(3);
  });
});
