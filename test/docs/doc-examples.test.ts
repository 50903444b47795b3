import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { appParts, buildContainer } from '../../infrastructure/composition-root.js';
import { loadConfig } from '../../infrastructure/config/config.js';
import { startServer, type RunningServer } from '../../interfaces/http/server.js';
import { docFiles, examplesOf, jsonDifferences, parseCurl, shellWords, textDifferences, type DocExample } from '../support/doc-examples.js';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { OpenAiChatServer, type ChatReply, type Script } from '../support/openai-chat-server.js';
import { analysisAnswer, callFn, lastResult, podName, webDeployment } from '../support/remediation-fixtures.js';
import { runCli } from '../support/run-cli.js';

/** The address every example is written against (the embedded defaults). */
const DOC_URL = 'http://127.0.0.1:3456';
const PODS = { apiVersion: 'v1', kind: 'Pod', namespace: 'x', labelSelector: 'app=web' };

/** The scripted model's part in a named example; the cluster holds web in x with an image that does not exist. */
const MODEL_SCRIPTS: Record<string, () => Script[]> = {
  'remediate-start': () => [
    callFn('list_resources', PODS),
    (body) => callFn('describe_resource', { apiVersion: 'v1', kind: 'Pod', namespace: 'x', name: podName(body) }),
    (body) => ({ content: lastResult(body).includes('ImagePullBackOff') ? 'The tag nginx:9.9-missing does not exist.' : 'unclear' }),
    { content: analysisAnswer() },
  ],
  'remediate-execute': () => {
    // the follow-up check lists the pods until web's pod is ready (at most 4 looks), then says what it saw
    const look = (body: Record<string, any>): ChatReply => {
      const seen = lastResult(body);
      const looked = body.messages.filter((m: { role: string }) => m.role === 'tool').length;
      const healthy = /ready 1\/1/.test(seen) && !seen.includes('ImagePullBackOff');
      if (looked > 0 && (healthy || looked >= 4))
        return { content: JSON.stringify({ resolved: healthy, summary: 'web runs nginx:1.27 and its pod is ready' }) };
      return callFn('list_resources', PODS);
    };
    return [look, look, look, look, look];
  },
};

describe('the docs: every runnable example answers as shown, against a live svc with the stand-ins', function () {
  this.timeout(60_000);
  const examples: DocExample[] = docFiles().flatMap(examplesOf);
  let kube: KubeApiServer;
  let chat: OpenAiChatServer;
  let running: RunningServer;
  let dataDir: string;
  /** The latest real id of each kind (rem_, opr_, sol_): an example that continues a session is sent the real one. */
  const ids = new Map<string, string>();

  before(async () => {
    kube = await KubeApiServer.start();
    kube.create(webDeployment('nginx:9.9-missing'));
    kube.tick(3);
    chat = await OpenAiChatServer.start();
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-doc-examples-'));
    // the embedded defaults (open on loopback), plus a cluster and a model
    const config = loadConfig({
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'silent',
      SVC_DATA_DIR: dataDir,
      KUBECONFIG: kube.writeKubeconfig(),
      OPENAI_API_KEY: chat.apiKey,
      OPENAI_BASE_URL: chat.baseUrl,
      SVC_LLM_MODEL: 'gpt-test',
      SVC_LLM_MAX_RETRIES: '0',
      // svc's verdict after an execution watches for a 30 ms settle window here, not 60 s
      SVC_VERIFY_WINDOW_MS: '30',
    });
    running = await startServer(appParts(buildContainer(config)));
  });
  after(async () => {
    await running.close();
    await kube.close();
    await chat.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('finds the runnable examples (the tour of the README among them)', () => {
    expect(examples.filter((e) => e.file === 'README.md').length).to.be.at.least(4);
  });

  const withRealIds = (text: string) => text.replace(/\b(rem|opr|sol)_[0-9a-f]{32}\b/g, (id, kind: string) => ids.get(kind) ?? id);
  const remember = (text: string) => {
    for (const m of text.matchAll(/\b(rem|opr|sol)_[0-9a-f]{32}\b/g)) ids.set(m[1], m[0]);
  };

  /** Sends the example's request to the live server; the real answer as text. */
  async function answerOf(e: DocExample): Promise<string> {
    const request = withRealIds(e.request).replaceAll(DOC_URL, running.url);
    const first = request.trimStart();
    if (first.startsWith('curl ')) {
      const c = parseCurl(request, {});
      const res = await fetch(c.url, { method: c.method, headers: c.headers, body: c.body });
      return res.text();
    }
    if (first.startsWith('svc ')) {
      const run = await runCli(shellWords(request, {}).slice(1), { SVC_URL: running.url });
      return run.stdout + run.stderr;
    }
    if (first.startsWith('{')) {
      const res = await fetch(`${running.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: request,
      });
      return res.text();
    }
    throw new Error(`${e.file}:${e.line}: a request is a curl command, an svc command or an MCP JSON-RPC message`);
  }

  for (const e of examples) {
    it(`${e.file}:${e.line}${e.name ? ` (${e.name})` : ''}: ${e.request.split('\n')[0].slice(0, 80)}`, async () => {
      if (e.name && MODEL_SCRIPTS[e.name]) chat.script(...MODEL_SCRIPTS[e.name]());
      else if (e.name) throw new Error(`${e.file}:${e.line}: no set-up named ${e.name}`);
      const real = await answerOf(e);
      remember(real);
      const differences = e.answerLang === 'json' ? jsonDifferences(JSON.parse(e.answer), JSON.parse(real)) : textDifferences(e.answer, real);
      expect(differences, `${e.file}:${e.line}: the answer shown drifted from the real one`).to.deep.equal([]);
    });
  }
});
