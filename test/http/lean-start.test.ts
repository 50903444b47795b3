import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AnthropicMessagesServer } from '../support/anthropic-messages-server.js';
import { startConfiguredStandIns } from '../support/configured-stand-ins.js';
import { startReplica, waitFor } from '../support/svc-process.js';

const TOKEN = 'lean-start-token-0123456789abcdef';
const PROBE = path.join(__dirname, '..', 'support', 'loaded-modules-probe.js');

/** What a start must not load before it is used (issue 44): SDKs, clients, the tools' output schemas. */
const LAZY = {
  'the openai SDK': /node_modules\/openai\//,
  'the Anthropic SDK': /node_modules\/@anthropic-ai\/sdk\//,
  'the AWS SDK': /node_modules\/@aws-sdk\//,
  'the Kubernetes library': /node_modules\/@kubernetes\/client-node\//,
  'the Qdrant client': /node_modules\/@qdrant\/js-client-rest\//,
  'the MCP SDK': /node_modules\/@modelcontextprotocol\/sdk\//,
  'isomorphic-git': /node_modules\/isomorphic-git\//,
  ioredis: /node_modules\/ioredis\//,
  'swagger-ui-dist': /node_modules\/swagger-ui-dist\//,
  "OpenTelemetry's Node SDK": /node_modules\/@opentelemetry\/sdk-node\//,
  "OpenTelemetry's log SDK": /node_modules\/@opentelemetry\/sdk-logs\//,
  // a span exporter (and its transport and protobuf libraries) loads with the first export, seconds after the start
  "OpenTelemetry's exporters": /node_modules\/@opentelemetry\/exporter-/,
  "OpenTelemetry's gRPC exporters": /node_modules\/@opentelemetry\/[a-z-]*grpc[a-z-]*\//,
  "the tools' output schemas": /dist\/domain\/tools\/outputs\/(deployment-outputs|operate-output|remediate-output|version-output|org-data-output)\.js$/,
};
type Name = keyof typeof LAZY;
/** What a start with tracing configured loads: OpenTelemetry's Node SDK and the packages it imports itself. */
const NODE_SDK: Name[] = ["OpenTelemetry's Node SDK", "OpenTelemetry's log SDK", "OpenTelemetry's exporters", "OpenTelemetry's gRPC exporters"];

/**
 * svc started with the loaded-modules probe, once its app answered the
 * catalog (the start is over: the composition is built and attached), and a
 * reader of the names in LAZY it has loaded so far.
 */
async function startProbed(env: Record<string, string>) {
  const probeDir = mkdtempSync(path.join(tmpdir(), 'svc-lean-start-'));
  const listFile = path.join(probeDir, 'loaded.json');
  const replica = await startReplica({ SVC_AUTH_TOKEN: TOKEN, LOADED_MODULES_FILE: listFile, ...env }, ['-r', PROBE]);
  const catalog = await fetch(`${replica.url}/api/v1/tools`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(catalog.status).to.equal(200);
  await catalog.arrayBuffer();
  const loaded = async (): Promise<Name[]> => {
    rmSync(listFile, { force: true });
    replica.p.child.kill('SIGUSR2');
    await waitFor(() => existsSync(listFile), 'the list of loaded modules');
    const files = JSON.parse(readFileSync(listFile, 'utf8')) as string[];
    return (Object.keys(LAZY) as Name[]).filter((name) => files.some((f) => LAZY[name].test(f.split(path.sep).join('/'))));
  };
  const stop = async () => {
    replica.p.child.kill('SIGKILL');
    await replica.p.exited;
    rmSync(replica.dir, { recursive: true, force: true });
    rmSync(probeDir, { recursive: true, force: true });
  };
  return { url: replica.url, loaded, stop };
}

const callTool = (url: string, name: string) =>
  fetch(`${url}/api/v1/tools/${name}`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: '{}' });

describe('a lean start (issue 44): what svc loads only when it is used', function () {
  this.timeout(60000);

  it('on the embedded defaults, loads none of them by its first catalog answer; the output schemas load with the OpenAPI document', async () => {
    const svc = await startProbed({});
    try {
      expect(await svc.loaded()).to.deep.equal([]);
      const openapi = await fetch(`${svc.url}/api/v1/openapi`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(openapi.status).to.equal(200);
      await openapi.arrayBuffer();
      expect(await svc.loaded()).to.deep.equal(["the tools' output schemas"]);
    } finally {
      await svc.stop();
    }
  });

  it('with an OpenAI-compatible provider, Qdrant and OTLP tracing configured, loads only the Node SDK tracing asked for; the Qdrant client loads with the first Qdrant request', async () => {
    const standIns = await startConfiguredStandIns();
    const svc = await startProbed(standIns.env);
    try {
      // tracing is registered at the start (before any outgoing call) on OpenTelemetry's Node SDK, which brings its
      // log SDK and exporter packages along; nothing else of LAZY loads before it is used
      expect(await svc.loaded()).to.deep.equal(NODE_SDK);
      // version asks Qdrant for its health: the client is made then
      const version = await callTool(svc.url, 'version');
      expect(version.status).to.equal(200);
      await version.arrayBuffer();
      expect(await svc.loaded()).to.include('the Qdrant client');
    } finally {
      await svc.stop();
      await standIns.close();
    }
  });

  it('with Anthropic configured, does not load its SDK before the first model call', async () => {
    const anthropic = await AnthropicMessagesServer.start();
    const svc = await startProbed({
      SVC_LLM_PROVIDER: 'anthropic',
      ANTHROPIC_API_KEY: anthropic.apiKey,
      ANTHROPIC_BASE_URL: anthropic.baseUrl,
      SVC_LLM_MODEL: 'claude-test',
    });
    try {
      expect(await svc.loaded()).to.deep.equal([]);
    } finally {
      await svc.stop();
      await anthropic.close();
    }
  });
});
