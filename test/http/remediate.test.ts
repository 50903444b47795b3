import { expect } from 'chai';
import request from 'supertest';
import { rolloutStatus } from '../../domain/cluster/rollout-status.js';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import type { ChatReply, Script } from '../support/scripted-model.js';
import { suiteProviders, startModelStandIn, type ModelStandIn } from '../support/model-stand-ins.js';
import { RecordingTracer } from '../support/recording-tracer.js';
import { analysisAnswer, callFn, containerPatch, lastResult, podName, WEB, webDeployment } from '../support/remediation-fixtures.js';
import { auth, buildTestApp } from '../support/test-app.js';

type Any = any;
const PODS = { apiVersion: 'v1', kind: 'Pod', namespace: 'x', labelSelector: 'app=web' };

for (const provider of suiteProviders('openai'))
  describe(`remediate over HTTP (scripted chat server, behaving Kubernetes stand-in) [${provider}]`, () => {
    let kube: KubeApiServer;
    let chat: ModelStandIn;
    let env: Record<string, string>;

    beforeEach(async () => {
      kube = await KubeApiServer.start();
      chat = await startModelStandIn(provider);
      env = {
        ...chat.env(),
        SVC_LLM_MAX_RETRIES: '0',
        KUBECONFIG: kube.writeKubeconfig(),
      };
    });
    afterEach(async () => {
      await kube.close();
      await chat.close();
    });

    const post = (app: Any, body: object) => request(app).post('/api/v1/tools/remediate').set(auth).send(body);
    const writes = () => kube.requests.filter((r) => r.method !== 'GET');
    /** A follow-up check that lists the pods until none is failing (at most 4 times), then says what it saw. */
    const verification = (healthy: (pods: string) => boolean): Script[] => {
      const look = (body: Any): ChatReply => {
        const seen = lastResult(body);
        const looked = body.messages.filter((m: Any) => m.role === 'tool').length;
        if (looked > 0 && (healthy(seen) || looked >= 4)) return { content: JSON.stringify({ resolved: healthy(seen), summary: seen.slice(0, 300) }) };
        return callFn('list_resources', PODS);
      };
      return [look, look, look, look, look];
    };

    it('finds a bad image and fixes it on approval: read-only investigation, patch, rollout, follow-up check', async () => {
      kube.create(webDeployment('nginx:9.9-missing'));
      kube.tick(3);
      chat.script(
        callFn('list_resources', PODS),
        (body) => callFn('describe_resource', { apiVersion: 'v1', kind: 'Pod', namespace: 'x', name: podName(body) }),
        (body) => ({ content: lastResult(body).includes('ImagePullBackOff') ? 'The tag nginx:9.9-missing does not exist.' : 'unclear' }),
        { content: analysisAnswer() },
      );
      const { app } = buildTestApp(env);
      const start = await post(app, { issue: 'web in namespace x never becomes ready' }).expect(200);
      const view = start.body.data.result;
      expect(view.status).to.equal('awaiting_approval');
      expect(view.investigation.functionsCalled.map((f: Any) => [f.name, f.ok])).to.deep.equal([
        ['list_resources', true],
        ['describe_resource', true],
      ]);
      // the proposal was previewed with a dry run: nothing persisted
      expect(writes().map((r) => r.query.get('dryRun'))).to.deep.equal(['All']);
      expect(view.actions[0]).to.deep.include({ dryRun: { accepted: true }, effect: 'update' });
      // the model saw the pull failure through the real adapter and stand-in
      expect(JSON.stringify(chat.requests[2].messages)).to.contain('ImagePullBackOff').and.contain('Failed to pull image');
      expect(chat.requests[3].response_format.type).to.equal('json_schema');
      // the analysis is a fresh [system, user] conversation: no tool calls in a request that declares no tools
      expect(chat.requests[3].messages.map((m: Any) => m.role)).to.deep.equal(['system', 'user']);
      expect(chat.requests[3].tools).to.equal(undefined);

      chat.script(...verification((pods) => /ready 1\/1/.test(pods) && !pods.includes('ImagePullBackOff')));
      const exec = await post(app, { sessionId: view.sessionId, executeChoice: 1 }).expect(200);
      const done = exec.body.data.result;
      expect(done.status).to.equal('executed');
      expect(writes().map((r) => [r.method, r.contentType, r.query.get('dryRun')])).to.deep.equal([
        ['PATCH', 'application/strategic-merge-patch+json', 'All'],
        ['PATCH', 'application/strategic-merge-patch+json', 'All'],
        ['PATCH', 'application/strategic-merge-patch+json', null],
      ]);
      expect(done.verification.resolved).to.equal(true);
      kube.settle();
      const d = kube.objects.get(kube.pathOf('apps/v1', 'Deployment', 'web', 'x'))!;
      expect(d.spec.template.spec.containers[0].image).to.equal('nginx:1.27');
      expect(d.status.readyReplicas).to.equal(1);
    });

    it('waits for the rollout before the follow-up check: its first look sees the fixed pod ready, and it is told how the rollout ended', async () => {
      kube.create(webDeployment('nginx:9.9-missing'));
      kube.tick(3);
      chat.script(callFn('list_resources', PODS), { content: 'The tag nginx:9.9-missing does not exist.' }, { content: analysisAnswer() });
      const { app } = buildTestApp(env);
      const view = (await post(app, { issue: 'web in namespace x never becomes ready' }).expect(200)).body.data.result;
      const path = kube.pathOf('apps/v1', 'Deployment', 'web', 'x');
      let atFirstLook: Any;
      chat.script(
        () => {
          // the cluster as it is when the follow-up check starts
          atFirstLook = rolloutStatus(structuredClone(kube.objects.get(path)!) as Any);
          return callFn('list_resources', PODS);
        },
        (body) => ({ content: JSON.stringify({ resolved: /ready 1\/1/.test(lastResult(body)), summary: lastResult(body).slice(0, 200) }) }),
      );
      const done = (await post(app, { sessionId: view.sessionId, executeChoice: 1 }).expect(200)).body.data.result;
      expect(atFirstLook).to.deep.equal({ done: true, failed: false, message: 'successfully rolled out (1 of 1 replicas available)' });
      expect(done.verification.resolved).to.equal(true);
      expect(done.execution.outcome.rollouts).to.deep.equal([
        {
          target: WEB,
          state: 'rolled-out',
          message: 'successfully rolled out (1 of 1 replicas available)',
          waitedMs: done.execution.outcome.rollouts[0].waitedMs,
        },
      ]);
      const checkRequest = chat.requests.at(-2)!;
      expect(checkRequest.messages[1].content).to.contain('<data name="rollouts">\nDeployment x/web: rolled-out (successfully rolled out');
    });

    it('a fix whose rollout fails: the check is told, and the answer carries the rollback advice', async () => {
      kube.create({ ...webDeployment('nginx:1.27'), spec: { ...(webDeployment('nginx:1.27').spec as Any), progressDeadlineSeconds: 60 } });
      kube.settle();
      const bad = containerPatch('nginx:9.9-missing');
      chat.script({ content: 'web should run nginx:9.9-missing.' }, { content: analysisAnswer({ actions: [bad] }) });
      const { app } = buildTestApp(env);
      const view = (await post(app, { issue: 'web must run the new image' }).expect(200)).body.data.result;
      chat.script((body) => ({
        content: JSON.stringify({ resolved: false, summary: body.messages[1].content.match(/Deployment x\/web: failed[^\n]*/)?.[0] ?? 'no rollout line' }),
      }));
      const done = (await post(app, { sessionId: view.sessionId, executeChoice: 1 }).expect(200)).body.data.result;
      const [rollout] = done.execution.outcome.rollouts;
      expect(rollout.state).to.equal('failed');
      expect(rollout.message).to.match(/^rollout failed: ReplicaSet "web-\w+" has timed out progressing\.$/);
      expect(rollout.rollback.kubectlUndo).to.equal('kubectl rollout undo deployment/web -n x');
      expect(rollout.rollback.patch.spec.template).to.deep.equal({ spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } });
      expect(done.verification.summary).to.match(/^Deployment x\/web: failed \(rollout failed: .*\); to roll back: kubectl rollout undo deployment\/web -n x$/);
      expect(done.message).to.contain('Not rolled out: Deployment x/web: failed');
    });

    it('fixes an OOM-killed pod by raising its memory limit', async () => {
      kube.create(webDeployment('redis:7', '32Mi'));
      kube.tick(3);
      const raise = containerPatch('redis:7', 'medium', '128Mi');
      chat.script(
        callFn('list_resources', PODS),
        (body) => callFn('get_pod_logs', { namespace: 'x', pod: podName(body), previous: true, tailLines: 50 }),
        { content: 'OOMKilled at 32Mi: redis needs more.' },
        { content: analysisAnswer({ rootCause: 'The redis container is OOMKilled at its 32Mi memory limit.', actions: [raise] }) },
      );
      const { app } = buildTestApp(env);
      const view = (await post(app, { issue: 'web keeps restarting' }).expect(200)).body.data.result;
      expect(JSON.stringify(chat.requests[1].messages)).to.contain('OOMKilled');
      expect(JSON.stringify(chat.requests[2].messages)).to.contain('Redis is starting');
      expect(view.actions[0]).to.include({ risk: 'medium' });
      chat.script(...verification((pods) => /ready 1\/1, restarts 0/.test(pods)));
      const done = (await post(app, { sessionId: view.sessionId, executeChoice: 1 }).expect(200)).body.data.result;
      expect(done.status).to.equal('executed');
      kube.settle();
      const pods = [...kube.objects.values()].filter((o) => o.kind === 'Pod' && o.metadata.namespace === 'x');
      expect(pods.map((p) => [p.spec.containers[0].resources.limits.memory, p.status.containerStatuses[0].ready])).to.deep.equal([['128Mi', true]]);
    });

    it('never applies a proposal whose dry run the API server refuses (422 negative replicas), not even its valid actions', async () => {
      kube.create(webDeployment('nginx:9.9-missing'));
      const broken = { type: 'patch', target: WEB, patch: { spec: { replicas: -1 } }, description: 'Scale web to -1', risk: 'low', rationale: 'nonsense' };
      chat.script({ content: 'bad tag' }, { content: analysisAnswer({ actions: [containerPatch('nginx:1.27'), broken] }) });
      const { app } = buildTestApp(env);
      const view = (await post(app, { issue: 'web is down' }).expect(200)).body.data.result;
      expect(view.actions[1].dryRun).to.deep.include({ accepted: false, reason: 'Invalid' });
      expect(view.message).to.contain('cannot be executed: action 2 (Scale web to -1) was refused (Invalid)').and.contain('spec.replicas: Invalid value: -1');
      const refused = (await post(app, { sessionId: view.sessionId, executeChoice: 1 }).expect(400)).body.error;
      expect(refused.message).to.contain('action 2 (Scale web to -1)').and.contain('spec.replicas: Invalid value: -1');
      expect(writes().every((r) => r.query.get('dryRun') === 'All')).to.equal(true);
      expect(kube.objects.get(kube.pathOf('apps/v1', 'Deployment', 'web', 'x'))!.spec.template.spec.containers[0].image).to.equal('nginx:9.9-missing');
    });

    it('in automatic mode refuses a high-risk action (and a delete labelled low), executing nothing', async () => {
      kube.create(webDeployment('nginx:9.9-missing'));
      const del = { type: 'delete', target: WEB, description: 'Delete web', risk: 'low', rationale: 'start over' };
      chat.script(callFn('list_resources', PODS), { content: 'bad tag' }, { content: analysisAnswer({ actions: [del] }) });
      const { app } = buildTestApp(env);
      const view = (await post(app, { issue: 'web in namespace x is down', mode: 'automatic', maxRiskLevel: 'medium', confidenceThreshold: 0.5 }).expect(200))
        .body.data.result;
      expect(view.status).to.equal('awaiting_approval');
      expect(view.actions[0]).to.deep.include({ risk: 'high', riskReasons: ['deletes a Deployment'] });
      expect(view.automaticExecution).to.deep.equal({ executed: false, reason: '1 action(s) exceed maxRiskLevel medium: Delete web (high)' });
      expect(writes().filter((r) => r.query.get('dryRun') !== 'All')).to.deep.equal([]);
    });

    it('in automatic mode executes a fix within maxRiskLevel at once (an image change is medium: pods are replaced), with the follow-up check', async () => {
      kube.create(webDeployment('nginx:9.9-missing'));
      chat.script(
        callFn('list_resources', PODS),
        { content: 'bad tag' },
        { content: analysisAnswer() },
        ...verification((pods) => /ready 1\/1/.test(pods) && !pods.includes('ImagePull')),
      );
      const { app } = buildTestApp(env);
      const view = (await post(app, { issue: 'web in namespace x is down', mode: 'automatic', maxRiskLevel: 'medium' }).expect(200)).body.data.result;
      expect(view.status).to.equal('executed');
      expect(view.automaticExecution.executed).to.equal(true);
      expect(view.verification.resolved).to.equal(true);
      expect(writes().map((r) => r.query.get('dryRun'))).to.deep.equal(['All', 'All', null]);
    });

    it('answers 400 for an unknown session and for a second executeChoice, also when two arrive at once', async () => {
      kube.create(webDeployment('nginx:9.9-missing'));
      chat.script({ content: 'bad tag' }, { content: analysisAnswer() }, ...verification(() => true));
      const { app } = buildTestApp(env);
      const unknown = await post(app, { sessionId: 'rem_0123456789abcdef0123456789abcdef', executeChoice: 1 }).expect(400);
      expect(unknown.body.error).to.deep.include({
        code: 'VALIDATION_ERROR',
        message: 'Unknown or expired session: rem_0123456789abcdef0123456789abcdef. Start a new investigation with remediate and an issue.',
      });
      const view = (await post(app, { issue: 'web is down' }).expect(200)).body.data.result;
      const [a, b] = await Promise.all([
        post(app, { sessionId: view.sessionId, executeChoice: 1 }),
        post(app, { sessionId: view.sessionId, executeChoice: 1 }),
      ]);
      expect([a.status, b.status].sort()).to.deep.equal([200, 400]);
      const refused = a.status === 400 ? a : b;
      expect(refused.body.error.message).to.match(/already executed|being executed/);
      expect(writes().filter((r) => r.query.get('dryRun') !== 'All')).to.have.length(1);
      const third = await post(app, { sessionId: view.sessionId, executeChoice: 1 }).expect(400);
      expect(third.body.error.message).to.contain('already executed (done at');
      expect(third.body.error.details.execution.outcome.report.outcomes[0].status).to.equal('applied');
      expect(writes().filter((r) => r.query.get('dryRun') !== 'All')).to.have.length(1);
    });

    it('takes evidence of 20000 characters to the model as data and refuses 20001', async () => {
      chat.script({ content: 'nothing wrong' }, { content: analysisAnswer({ actions: [], confidence: 0.3 }) });
      const { app } = buildTestApp(env);
      const evidence = 'E'.repeat(19990) + 'END-MARKER';
      const ok = await post(app, { issue: 'web is slow', evidence }).expect(200);
      expect(ok.body.data.result.status).to.equal('no_action');
      expect(chat.requests[0].messages[1].content).to.contain(`<data name="evidence">\n${evidence}\n</data>`);
      const tooLong = await post(app, { issue: 'web is slow', evidence: 'E'.repeat(20001) }).expect(400);
      expect(tooLong.body.error.code).to.equal('VALIDATION_ERROR');
      expect(chat.requests).to.have.length(2);
    });

    it('fails with 500 naming OPENAI_API_KEY without an AI provider, and KUBECONFIG without a cluster, before any call', async () => {
      const noAi = await post(buildTestApp({ KUBECONFIG: env.KUBECONFIG }).app, { issue: 'web is down' }).expect(500);
      expect(noAi.body.error.code).to.equal('EXECUTION_ERROR');
      expect(noAi.body.error.message).to.contain('OPENAI_API_KEY');
      const noCluster = await post(buildTestApp({ ...chat.env() }).app, {
        issue: 'web is down',
      }).expect(500);
      expect(noCluster.body.error.message).to.contain('KUBECONFIG');
      expect(chat.requests).to.deep.equal([]);
      expect(kube.requests).to.deep.equal([]);
    });

    it('traces execute_tool > tool_loop > chat with token usage, and cluster spans named after the API method', async () => {
      kube.create(webDeployment('nginx:9.9-missing'));
      chat.script(callFn('list_resources', PODS), { content: 'bad tag', usage: { prompt: 120, completion: 7 } }, { content: analysisAnswer() });
      const tracer = new RecordingTracer();
      const { app } = buildTestApp(env, { tracer });
      await post(app, { issue: 'web is down' }).expect(200);
      const root = tracer.spans.find((s) => s.name === 'execute_tool remediate')!;
      const loop = tracer.spans.find((s) => s.name === `tool_loop ${chat.modelName}`)!;
      expect(loop.parent).to.equal(root);
      const chats = tracer.spans.filter((s) => s.name === `chat ${chat.modelName}`);
      expect(chats.map((s) => s.parent?.name)).to.deep.equal([`tool_loop ${chat.modelName}`, `tool_loop ${chat.modelName}`, 'execute_tool remediate']);
      expect(chats[1].attributes).to.include({ 'gen_ai.usage.input_tokens': 120, 'gen_ai.usage.output_tokens': 7 });
      // the cluster's list (the policies' vector store list is another 'list' span, under the tool)
      const list = tracer.spans.find((s) => s.name === 'list' && s.attributes['k8s.operation'] === 'list')!;
      expect(list.parent).to.equal(loop);
      expect(list.attributes).to.include({ 'k8s.operation': 'list', 'k8s.resource': 'Pod' });
    });
  });
