import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import type { Express } from 'express';
import request from 'supertest';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { OpenAiChatServer } from '../support/openai-chat-server.js';
import { analysisAnswer, callFn, verifiedAnswer, webDeployment } from '../support/remediation-fixtures.js';
import { normalised, pollRun } from '../support/same-run.js';
import { auth, buildTestApp, TEST_DATA_DIR } from '../support/test-app.js';
import { runWorkflow, WorkflowStandIns, type CallTool } from '../support/workflow-harness.js';

type Json = Record<string, any>;
interface Answer {
  tool: string;
  /** The envelope's `data`: synchronously the response's, asynchronously the run's `result`. */
  data: Json;
}

/** Calls tools on `app`, the ones in `runs` as runs (202, Location, polled); every answer's `data` goes to `answers`. */
function caller(app: Express, runs: ReadonlySet<string>, answers: Answer[]): CallTool {
  return async (tool, params) => {
    if (!runs.has(tool)) {
      const res = await request(app).post(`/api/v1/tools/${tool}`).set(auth).send(params);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      answers.push({ tool, data: res.body.data });
      return res.body.data.result;
    }
    const started = await request(app)
      .post(`/api/v1/tools/${tool}`)
      .set({ ...auth, Prefer: 'respond-async' })
      .send(params);
    expect(started.status, JSON.stringify(started.body)).to.equal(202);
    const { runId } = started.body.data;
    expect(started.headers.location).to.equal(`/api/v1/runs/${runId}`);
    expect(started.headers['preference-applied']).to.equal('respond-async');
    const run = await pollRun(app, auth, runId);
    expect(run.status, JSON.stringify(run.error)).to.equal('succeeded');
    expect(run.progress.at(-1)).to.deep.include({ type: 'done', data: { status: 'succeeded' } });
    answers.push({ tool, data: run.result });
    return run.result.result;
  };
}

/** Each answer of the run side deep-equals the synchronous side's, tool by tool. */
function sameAnswers(polled: Answer[], sync: Answer[]): void {
  expect(polled.map((a) => a.tool)).to.deep.equal(sync.map((a) => a.tool));
  for (let i = 0; i < sync.length; i++) {
    const [a, b] = [normalised(polled[i].data), normalised(sync[i].data)];
    // the whole answers in the message, so a difference deep inside one is readable
    expect(JSON.stringify(a, null, 1), `${sync[i].tool} (step ${i + 1})`).to.equal(JSON.stringify(b, null, 1));
  }
}

describe('every long tool through Prefer: respond-async: the polled result deep-equals the synchronous answer of the same scripted run', function () {
  this.timeout(90_000);

  it('recommend, generateManifests and deployManifests: the deployment workflow, each side on stand-ins of its own', async () => {
    const sides = [await WorkflowStandIns.start(), await WorkflowStandIns.start()];
    try {
      const answers: Answer[][] = [[], []];
      const long = new Set(['recommend', 'generateManifests', 'deployManifests']);
      for (const [i, s] of sides.entries()) {
        const t = buildTestApp(s.env(), s.overrides());
        await s.seedOrgData(t.container);
        s.answer();
        await runWorkflow(caller(t.app, i === 0 ? new Set() : long, answers[i]));
      }
      sameAnswers(answers[1], answers[0]);
      expect(answers[1].filter((a) => long.has(a.tool))).to.have.length(3);
      const [, deployed] = sides;
      // the run side really deployed: the objects are in its cluster, ready
      expect(deployed.kube.objects.get('/apis/apps/v1/namespaces/x/deployments/web')?.status.availableReplicas).to.equal(2);
    } finally {
      for (const s of sides) await s.close();
    }
  });

  it('remediate: the investigation and the approved execution, each side on a cluster of its own', async () => {
    const chat = await OpenAiChatServer.start();
    const kubes = [await KubeApiServer.start(), await KubeApiServer.start()];
    try {
      const answers: Answer[][] = [[], []];
      for (const [i, kube] of kubes.entries()) {
        kube.create(webDeployment('nginx:9.9-missing'));
        kube.tick(3);
        const { app } = buildTestApp({
          OPENAI_API_KEY: chat.apiKey,
          OPENAI_BASE_URL: chat.baseUrl,
          SVC_LLM_MODEL: 'gpt-test',
          SVC_LLM_MAX_RETRIES: '0',
          KUBECONFIG: kube.writeKubeconfig(),
          // a ledger of its own, so both sides number their changes from 1
          SVC_DATA_DIR: mkdtempSync(path.join(TEST_DATA_DIR, 'polled-')),
        });
        const call = caller(app, i === 0 ? new Set() : new Set(['remediate']), answers[i]);
        chat.script(
          callFn('get_resource', { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' }),
          { content: 'The tag nginx:9.9-missing does not exist.' },
          { content: analysisAnswer() },
        );
        const proposed = await call('remediate', { issue: 'web in namespace x never becomes ready' });
        expect(proposed.status).to.equal('awaiting_approval');
        chat.script({ content: verifiedAnswer() });
        const executed = await call('remediate', { sessionId: proposed.sessionId, executeChoice: 1 });
        expect(executed.status).to.equal('executed');
      }
      sameAnswers(answers[1], answers[0]);
    } finally {
      for (const k of kubes) await k.close();
      await chat.close();
    }
  });
});
