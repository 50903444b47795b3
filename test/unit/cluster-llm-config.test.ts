import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NotConfiguredError } from '../../domain/errors.js';
import { parseClusterConfig } from '../../infrastructure/config/cluster-config.js';
import { ConfigError } from '../../infrastructure/config/env-parsers.js';
import { DEFAULT_LLM_MODEL, parseLlmConfig } from '../../infrastructure/config/llm-config.js';
import { createClusterClient, createLazyClusterClient } from '../../infrastructure/kubernetes/create-cluster-client.js';
import { KubernetesClusterClient } from '../../infrastructure/kubernetes/kubernetes-cluster-client.js';
import { createLlmProvider } from '../../infrastructure/llm/create-llm-provider.js';
import { OpenAiLlmProvider } from '../../infrastructure/llm/openai-llm-provider.js';
import { UnconfiguredClusterClient } from '../../infrastructure/not-configured/unconfigured-cluster-client.js';
import { UnconfiguredLlmProvider } from '../../infrastructure/not-configured/unconfigured-llm-provider.js';

const exists =
  (...files: string[]) =>
  (f: string) =>
    files.includes(f);

describe('cluster and AI provider configuration', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'svc-kc-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('takes KUBECONFIG first, keeping only the listed files that exist', () => {
    const c = parseClusterConfig({ KUBECONFIG: `/a${path.delimiter}/b`, KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' }, exists('/b'));
    expect(c).to.deep.equal({ source: { mode: 'kubeconfig', files: ['/b'], origin: 'KUBECONFIG' }, requestTimeoutMs: 30000, impersonate: false });
  });

  it('refuses a KUBECONFIG that names no existing file, naming the variable', () => {
    expect(() => parseClusterConfig({ KUBECONFIG: '/nope' }, exists())).to.throw(ConfigError, /KUBECONFIG names no existing file \(\/nope\)/);
  });

  it('uses the service account in a pod, then ~/.kube/config, else none', () => {
    expect(parseClusterConfig({ KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '6443' }, exists()).source).to.deep.equal({
      mode: 'in-cluster',
      host: '10.0.0.1',
      port: 6443,
      serviceAccountDir: '/var/run/secrets/kubernetes.io/serviceaccount',
    });
    expect(() => parseClusterConfig({ KUBERNETES_SERVICE_HOST: '10.0.0.1' }, exists())).to.throw(/KUBERNETES_SERVICE_PORT must be set/);
    const home = path.join('/home/u', '.kube', 'config');
    expect(parseClusterConfig({ HOME: '/home/u' }, exists(home)).source).to.deep.equal({ mode: 'kubeconfig', files: [home], origin: 'default' });
    expect(parseClusterConfig({ HOME: '/home/u' }, exists()).source).to.deep.equal({ mode: 'none' });
    expect(() => parseClusterConfig({ SVC_KUBE_TIMEOUT_MS: 'soon' }, exists())).to.throw(/SVC_KUBE_TIMEOUT_MS must be a whole number/);
  });

  it('picks the Kubernetes client by configuration', () => {
    expect(createClusterClient({ source: { mode: 'none' }, requestTimeoutMs: 1000 })).to.be.instanceOf(UnconfiguredClusterClient);
    const good = path.join(dir, 'good.yaml');
    writeFileSync(
      good,
      'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: ctx, context: {cluster: c, user: u}}]\ncurrent-context: ctx\n',
    );
    const client = createClusterClient({ source: { mode: 'kubeconfig', files: [good], origin: 'KUBECONFIG' }, requestTimeoutMs: 1000 });
    expect(client).to.be.instanceOf(KubernetesClusterClient);
    expect(client.context()).to.equal('ctx');
  });

  it('stops start-up on a kubeconfig that does not parse, naming KUBECONFIG without quoting the file', () => {
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(bad, 'users:\n- name: u\n  user:\n    token: "kube-secret-token-123456"\n   oops: [\n');
    const e = (() => {
      try {
        createClusterClient({ source: { mode: 'kubeconfig', files: [bad], origin: 'KUBECONFIG' }, requestTimeoutMs: 1000 });
      } catch (err) {
        return err as Error;
      }
      throw new Error('expected a ConfigError');
    })();
    expect(e).to.be.instanceOf(ConfigError);
    expect(e.message).to.match(/^Invalid configuration: KUBECONFIG file .*bad\.yaml is not a usable kubeconfig: /);
    expect(e.message).not.to.contain('kube-secret-token-123456');
  });

  it('reads OPENAI_API_KEY, OPENAI_BASE_URL and SVC_LLM_MODEL, naming a bad one', () => {
    expect(parseLlmConfig({})).to.deep.equal({
      provider: 'openai',
      apiKey: undefined,
      baseUrl: undefined,
      secretHeaders: {},
      model: DEFAULT_LLM_MODEL,
      timeoutMs: 120000,
      maxRetries: 2,
      structuredOutput: 'json_schema',
    });
    expect(parseLlmConfig({ OPENAI_API_KEY: 'sk-1', OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', SVC_LLM_MODEL: 'llama3' })).to.include({
      apiKey: 'sk-1',
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'llama3',
    });
    expect(() => parseLlmConfig({ OPENAI_BASE_URL: 'ftp://u:pw@host' })).to.throw(
      ConfigError,
      /^Invalid configuration: OPENAI_BASE_URL must be an http\(s\) URL$/,
    );
    expect(() => parseLlmConfig({ SVC_LLM_MODEL: 'two words' })).to.throw(/SVC_LLM_MODEL must be a model name/);
  });

  it('picks the AI provider by OPENAI_API_KEY; the not-configured one says what to set', async () => {
    expect(createLlmProvider(parseLlmConfig({ OPENAI_API_KEY: 'sk-1' }))).to.be.instanceOf(OpenAiLlmProvider);
    const none = createLlmProvider(parseLlmConfig({}));
    expect(none).to.be.instanceOf(UnconfiguredLlmProvider);
    const hint =
      'set OPENAI_API_KEY (and OPENAI_BASE_URL for a non-OpenAI server), or SVC_LLM_PROVIDER=anthropic (ANTHROPIC_API_KEY) or bedrock (AWS_REGION, SVC_LLM_MODEL)';
    expect(none.status()).to.deep.equal({ configured: false, provider: 'none', hint });
    const e = await none.chat([{ role: 'user', content: 'hi' }]).catch((err) => err);
    expect(e).to.be.instanceOf(NotConfiguredError);
    expect(e.message).to.equal(`The AI provider is not configured: ${hint}`);
  });

  it('the not-configured cluster client reports what to set and refuses every call', async () => {
    const c = new UnconfiguredClusterClient();
    expect(await c.status()).to.deep.equal({ connected: false, context: '', error: 'no cluster configured: set KUBECONFIG or run svc inside a cluster' });
    const e = await c.list({ apiVersion: 'v1', kind: 'Pod' }).catch((err) => err);
    expect(e).to.be.instanceOf(NotConfiguredError);
    expect(e.message).to.equal('The Kubernetes cluster is not configured: set KUBECONFIG or run svc inside a cluster');
  });
});

describe('the lazily built cluster client', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-lazy-kube-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('parses the kubeconfig at start-up and answers context() without loading the Kubernetes library', () => {
    const good = path.join(dir, 'good.yaml');
    writeFileSync(
      good,
      'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: ctx, context: {cluster: c, user: u}}]\ncurrent-context: ctx\n',
    );
    const client = createLazyClusterClient({ source: { mode: 'kubeconfig', files: [good], origin: 'KUBECONFIG' }, requestTimeoutMs: 1000 });
    expect(client.context()).to.equal('ctx');
    expect(client).not.to.be.instanceOf(KubernetesClusterClient);
    // whether the library loaded is read in a fresh process: in this one another test may have loaded it already
    const script = `
      const { createLazyClusterClient } = require(${JSON.stringify(require.resolve('../../infrastructure/kubernetes/create-cluster-client.js'))});
      const c = createLazyClusterClient({ source: { mode: 'kubeconfig', files: [${JSON.stringify(good)}], origin: 'KUBECONFIG' }, requestTimeoutMs: 1000 });
      const loaded = Object.keys(require.cache).filter((k) => k.includes('@kubernetes/client-node')).length;
      process.stdout.write(JSON.stringify({ context: c.context(), loaded }));`;
    const fresh = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as { context: string; loaded: number };
    expect(fresh).to.deep.equal({ context: 'ctx', loaded: 0 });
  });

  it('stops start-up on a file that does not parse, without quoting it; a structure the library refuses is a clean not-configured error later', async () => {
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(bad, 'users:\n- name: u\n  user:\n    token: "kube-secret-token-123456"\n   oops: [\n');
    expect(() => createLazyClusterClient({ source: { mode: 'kubeconfig', files: [bad], origin: 'KUBECONFIG' }, requestTimeoutMs: 1000 }))
      .to.throw(ConfigError, /^Invalid configuration: KUBECONFIG file .*bad\.yaml is not a usable kubeconfig: /)
      .with.property('message')
      .that.does.not.contain('kube-secret-token-123456');
    const odd = path.join(dir, 'odd.yaml');
    writeFileSync(odd, 'clusters: 7\ncurrent-context: x\n');
    const client = createLazyClusterClient({ source: { mode: 'kubeconfig', files: [odd], origin: 'KUBECONFIG' }, requestTimeoutMs: 1000 });
    expect(client.context()).to.equal('x');
    const status = await client.status();
    expect(status.connected).to.equal(false);
    const e = await client.version().catch((err: Error) => err);
    expect((e as Error).message).to.match(/^The Kubernetes cluster is not configured: |Kubernetes/);
  });
});
