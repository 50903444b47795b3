import { expect } from 'chai';
import { startServer, type RunningServer } from '../../interfaces/http/server.js';
import { startGitHttpServer, type GitHttpServer } from '../support/git-http-server.js';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { OpenAiChatServer } from '../support/openai-chat-server.js';
import { PROMPT_REPOS } from '../support/prompt-repos.js';
import { QdrantServer } from '../support/qdrant-server.js';
import { auth, buildTestApp } from '../support/test-app.js';
import { WorkflowStandIns } from '../support/workflow-harness.js';
import { FaultProxy, figures, record } from './reliability-kit.js';
import { appParts } from '../../infrastructure/composition-root.js';

type Json = Record<string, any>;

const INTENT = 'an nginx web server for the shop front end, reachable inside the cluster';
const NEVER_HANG_MS = 15_000;

interface Answer {
  status: number;
  body: Json;
  text: string;
  ms: number;
}

/** The stack-trace shapes no body may carry. */
function expectNoStack(text: string): void {
  expect(text).not.to.match(/\n\s+at |\bat [\w.<>]+ \(|\/work\/|\bdist\/|node_modules|\.ts:\d+|\.js:\d+/);
}

describe('reliability: each dependency killed mid-request and restarted', function () {
  this.timeout(120_000);
  let qdrant: QdrantServer;
  let chat: OpenAiChatServer;
  let kube: KubeApiServer;
  let git: GitHttpServer;
  const proxies: Record<'qdrant' | 'chat' | 'kube' | 'git', FaultProxy> = {} as never;
  let running: RunningServer;
  const recommendation = new (WorkflowStandIns as any)(undefined, undefined).recommendation as Json;
  let chatHangs = false;

  before(async () => {
    qdrant = await new QdrantServer().start();
    chat = await OpenAiChatServer.start();
    kube = await KubeApiServer.start();
    git = await startGitHttpServer(PROMPT_REPOS);
    proxies.qdrant = await FaultProxy.start(Number(new URL(qdrant.url).port));
    proxies.chat = await FaultProxy.start(Number(new URL(chat.baseUrl).port));
    proxies.kube = await FaultProxy.start(Number(new URL(kube.url).port));
    proxies.git = await FaultProxy.start(git.port);
    chat.fallback = () => (chatHangs ? { hang: true } : { content: JSON.stringify(recommendation) });
    kube.url = `https://127.0.0.1:${proxies.kube.port}`; // the kubeconfig names the proxy
    const { container } = buildTestApp({
      QDRANT_URL: `http://127.0.0.1:${proxies.qdrant.port}`,
      OPENAI_API_KEY: chat.apiKey,
      OPENAI_BASE_URL: `http://127.0.0.1:${proxies.chat.port}/v1`,
      SVC_LLM_MODEL: 'gpt-test',
      SVC_LLM_MAX_RETRIES: '0',
      SVC_LLM_TIMEOUT_MS: '10000',
      KUBECONFIG: kube.writeKubeconfig(),
      SVC_KUBE_TIMEOUT_MS: '10000',
      SVC_ALLOWED_REPO_HOSTS: 'localhost',
      SVC_REPO_INTERNAL_HOSTS: 'localhost',
      SVC_USER_PROMPTS_CACHE_TTL: '0',
      SVC_RATE_LIMIT_ENABLED: 'false',
    });
    running = await startServer(appParts(container));
  });
  after(async () => {
    await running?.close();
    for (const p of Object.values(proxies)) await p?.close();
    await qdrant?.stop();
    await chat?.close();
    await kube?.close();
    await git?.close();
  });

  async function send(method: string, path: string, body?: unknown): Promise<Answer> {
    const t = Date.now();
    const res = await fetch(`${running.url}${path}`, {
      method,
      headers: { ...auth, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(NEVER_HANG_MS),
    });
    const text = await res.text();
    figures.requestsServed++;
    return { status: res.status, body: text ? JSON.parse(text) : {}, text, ms: Date.now() - t };
  }
  const recommend = () => send('POST', '/api/v1/tools/recommend', { intent: INTENT });
  const repoPrompts = () => send('GET', `/api/v1/prompts?repo=${encodeURIComponent(`http://localhost:${proxies.git.port}/public.git`)}`);

  async function unrelatedStillWork(): Promise<void> {
    expect((await send('GET', '/api/v1/tools')).status).to.equal(200);
    expect((await send('POST', '/api/v1/prompts/node-pressure', { arguments: { node: 'n1' } })).status).to.equal(200);
    expect((await send('GET', '/healthz')).status).to.equal(200);
  }

  function expectClean(a: Answer, status: number, code: string, names: RegExp, what: string): void {
    expect(a.status, `${what}: ${a.text.slice(0, 400)}`).to.equal(status);
    expect(a.body.success).to.equal(false);
    expect(a.body.error.code, what).to.equal(code);
    expect(a.body.error.message, what).to.match(names);
    expectNoStack(a.text);
    figures.cleanFailures++;
  }

  /** Starts `call`, waits until `arrived()` says the dependency holds a request, then kills `proxy`. */
  async function killMidRequest(proxy: FaultProxy, arrived: () => boolean, call: () => Promise<Answer>): Promise<Answer> {
    const pending = call();
    for (let i = 0; i < 400 && !arrived(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(arrived(), 'the request reached the dependency').to.equal(true);
    await proxy.kill();
    return pending;
  }

  it('the baseline: recommend reaches Qdrant, the chat server and Kubernetes; a per-request repo reaches git', async () => {
    const ok = await recommend();
    expect(ok.status, ok.text).to.equal(200);
    expect((await repoPrompts()).status).to.equal(200);
  });

  it('the vector store (Qdrant)', async () => {
    const patterns = () => send('POST', '/api/v1/tools/manageOrgData', { dataType: 'pattern', operation: 'list' });
    expect((await patterns()).status).to.equal(200);
    qdrant.hang = true;
    const seen = qdrant.requests.length;
    const mid = await killMidRequest(proxies.qdrant, () => qdrant.requests.length > seen, patterns);
    qdrant.hang = false;
    record('fault: Qdrant killed', `mid-request ${mid.status} ${mid.body.error?.code} in ${mid.ms} ms`);
    expectClean(mid, 502, 'DEPENDENCY_ERROR', /qdrant/i, 'mid-request');
    expectClean(await patterns(), 502, 'DEPENDENCY_ERROR', /qdrant/i, 'while down');
    // recommend reads organisational context as an extra: it answers without it and says so
    const degraded = await recommend();
    expect(degraded.status, degraded.text).to.equal(200);
    expect(JSON.stringify(degraded.body.data.result.notes ?? degraded.body.data.result)).to.match(/qdrant|vector|organi[sz]ation/i);
    expectNoStack(degraded.text);
    await unrelatedStillWork();
    await proxies.qdrant.restart();
    expect((await patterns()).status).to.equal(200);
    expect((await recommend()).status).to.equal(200);
  });

  it('the chat server', async () => {
    chatHangs = true;
    const seen = chat.requests.length;
    const mid = await killMidRequest(proxies.chat, () => chat.requests.length > seen, recommend);
    chatHangs = false;
    record('fault: chat server killed', `mid-request ${mid.status} ${mid.body.error?.code} in ${mid.ms} ms`);
    expectClean(mid, 502, 'DEPENDENCY_ERROR', /AI provider|openai|chat/i, 'mid-request');
    expectClean(await recommend(), 502, 'DEPENDENCY_ERROR', /AI provider|openai|chat|embedd/i, 'while down');
    await unrelatedStillWork();
    await proxies.chat.restart();
    expect((await recommend()).status).to.equal(200);
  });

  it('the Kubernetes API', async () => {
    let hang = true;
    kube.intercept = () => (hang ? { hang: true } : undefined);
    const seen = kube.requests.length;
    const mid = await killMidRequest(proxies.kube, () => kube.requests.length > seen, recommend);
    hang = false;
    kube.intercept = undefined;
    record('fault: Kubernetes API killed', `mid-request ${mid.status} ${mid.body.error?.code} in ${mid.ms} ms`);
    expectClean(mid, 502, 'DEPENDENCY_ERROR', /kubernetes/i, 'mid-request');
    expectClean(await recommend(), 502, 'DEPENDENCY_ERROR', /kubernetes/i, 'while down');
    const version = await send('POST', '/api/v1/tools/version', {});
    expect(version.status).to.equal(200);
    expect(version.body.data.result.system.kubernetes.connected).to.equal(false);
    await unrelatedStillWork();
    await proxies.kube.restart();
    expect((await recommend()).status).to.equal(200);
    expect((await send('POST', '/api/v1/tools/version', {})).body.data.result.system.kubernetes.connected).to.equal(true);
  });

  it('the git server', async () => {
    const seen = git.requests.length;
    const mid = await killMidRequest(proxies.git, () => git.requests.length > seen, repoPrompts);
    record('fault: git server killed', `mid-request ${mid.status} ${mid.body.error?.code} in ${mid.ms} ms`);
    if (mid.status !== 200) expectClean(mid, 502, 'PROMPTS_SOURCE_ERROR', /localhost/, 'mid-request');
    expectClean(await repoPrompts(), 502, 'PROMPTS_SOURCE_ERROR', /localhost/, 'while down');
    await unrelatedStillWork();
    expect((await recommend()).status).to.equal(200);
    await proxies.git.restart();
    expect((await repoPrompts()).status).to.equal(200);
  });
});
