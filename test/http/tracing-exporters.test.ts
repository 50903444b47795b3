import { expect } from 'chai';
import request from 'supertest';
import { parseTracingConfig } from '../../infrastructure/config/tracing-config.js';
import { createTracer } from '../../infrastructure/tracing/create-tracer.js';
import { ConsoleCapture } from '../support/console-capture.js';
import { DependencyServer } from '../support/dependency-server.js';
import type { ReceivedSpan } from '../support/received-span.js';
import { attr, childrenOf, httpChild, one } from '../support/span-tree.js';
import { TraceReceiver } from '../support/trace-receiver.js';
import { CANARY, tracedApp, type TracedApp } from '../support/traced-app.js';
import { CapturingLogger } from '../support/capturing-logger.js';

const EVIDENCE =
  `clone of https://deploy:${CANARY.gitPassword}@git.example.com/org/repo.git failed; ` +
  `retried with https://git.example.com/org/repo.git?private_token=${CANARY.gitPassword} and bearer ${CANARY.authToken}`;
const INPUT = { issue: 'pods of web crash-loop', evidence: EVIDENCE, sessionId: 'sess-42' };

interface Variant {
  label: string;
  format: ReceivedSpan['format'];
  env: (receiverUrl: string) => Record<string, string>;
}

const VARIANTS: Variant[] = [
  { label: 'otlp (http/protobuf)', format: 'otlp-protobuf', env: (u) => ({ OTEL_EXPORTER_TYPE: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: u }) },
  {
    label: 'otlp (http/json)',
    format: 'otlp-json',
    env: (u) => ({ OTEL_EXPORTER_TYPE: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: u, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }),
  },
  { label: 'zipkin', format: 'zipkin', env: (u) => ({ OTEL_EXPORTER_TYPE: 'zipkin', OTEL_EXPORTER_ZIPKIN_ENDPOINT: `${u}/api/v2/spans` }) },
  { label: 'jaeger', format: 'jaeger', env: (u) => ({ OTEL_EXPORTER_TYPE: 'jaeger', OTEL_EXPORTER_JAEGER_ENDPOINT: `${u}/api/traces` }) },
];

async function runTool(traced: TracedApp) {
  const res = await request(traced.app).post('/api/v1/tools/remediate').set('authorization', `Bearer ${CANARY.authToken}`).send(INPUT);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  await traced.tracer.shutdown();
}

/** The tree SPEC.md asks for, in any of the formats. */
function assertToolTree(spans: ReceivedSpan[], format: ReceivedSpan['format']) {
  expect(spans.length).to.be.greaterThan(0);
  expect(new Set(spans.map((s) => s.format))).to.deep.equal(new Set([format]));
  expect(new Set(spans.map((s) => s.traceId)).size, 'one trace id').to.equal(1);
  expect(new Set(spans.map((s) => s.serviceName))).to.deep.equal(new Set(['svc-mcp']));

  const root = one(spans, 'execute_tool remediate');
  expect(root.parentSpanId, 'the tool span is the root').to.equal(undefined);
  expect(attr(root, 'svc.session.id')).to.equal('sess-42');
  expect(attr(root, 'svc.tool.success')).to.equal('true');
  expect(attr(root, 'svc.tool.parameters')).to.equal('issue,evidence,sessionId');
  expect(Number(attr(root, 'svc.tool.duration_ms'))).to.be.at.least(0);
  const input = JSON.parse(attr(root, 'gen_ai.tool.input')!);
  expect(input.issue).to.equal(INPUT.issue);
  expect(input.evidence).to.contain('https://***:***@git.example.com/org/repo.git').and.contain('private_token=***').and.contain('bearer ***');

  const embeddings = one(spans, 'embeddings text-embedding-3-small');
  const search = one(spans, 'search');
  const chat = one(spans, 'chat gpt-test');
  const list = one(spans, 'list');
  const get = one(spans, 'get');
  expect(
    childrenOf(spans, root)
      .map((s) => s.name)
      .sort(),
  ).to.deep.equal(['chat gpt-test', 'embeddings text-embedding-3-small', 'get', 'list', 'search']);
  for (const child of [embeddings, search, chat, list, get]) httpChild(spans, child);

  expect(attr(embeddings, 'gen_ai.request.model')).to.equal('text-embedding-3-small');
  expect(attr(embeddings, 'gen_ai.provider.name')).to.equal('openai');
  expect(attr(chat, 'gen_ai.operation.name')).to.equal('chat');
  expect(attr(chat, 'gen_ai.request.model')).to.equal('gpt-test');
  expect(attr(chat, 'gen_ai.provider.name')).to.equal('openai');
  expect(attr(chat, 'gen_ai.usage.input_tokens')).to.equal('120');
  expect(attr(chat, 'gen_ai.usage.output_tokens')).to.equal('30');
  expect(attr(chat, 'gen_ai.usage.cache_read_tokens')).to.equal('100');
  expect(attr(chat, 'gen_ai.usage.cache_creation_tokens')).to.equal('0');
  expect(attr(search, 'db.operation.name')).to.equal('search');
  expect(attr(search, 'db.collection.name')).to.equal('patterns');
  expect(attr(search, 'db.query.result_count')).to.equal('2');
  expect(attr(search, 'db.vector.top_score')).to.equal('0.91');
  expect([attr(list, 'k8s.api'), attr(list, 'k8s.method'), attr(list, 'k8s.operation'), attr(list, 'k8s.resource')]).to.deep.equal([
    'apps/v1',
    'list',
    'list',
    'Deployment',
  ]);
  expect(get.status, 'a failed cluster call is recorded on its span').to.equal('error');
  expect(get.statusMessage ?? '').to.contain('https://***:***@cluster.example');
  expect(httpChild(spans, get).status, 'the 500 answer is an error on the HTTP span').to.equal('error');
  expect(root.status, 'a tolerated failure does not fail the tool span').to.not.equal('error');
}

function assertNoCanary(raw: string) {
  for (const [name, secret] of Object.entries(CANARY)) {
    const at = raw.indexOf(secret);
    expect(at, `${name} leaked into an exported span: ...${raw.slice(Math.max(0, at - 80), at + 40)}...`).to.equal(-1);
  }
}

describe('tracing: a real tool run through the real app, received by each exporter', function () {
  let receiver: TraceReceiver;
  let deps: DependencyServer;

  beforeEach(async () => {
    receiver = await TraceReceiver.start();
    deps = await DependencyServer.start();
  });
  afterEach(async () => {
    await receiver.close();
    await deps.close();
  });

  for (const variant of VARIANTS) {
    it(`${variant.label}: one trace, the SPEC tree, attributes, nested HTTP spans, no credential`, async () => {
      const traced = tracedApp({ OTEL_TRACING_ENABLED: 'true', ...variant.env(receiver.url) }, deps);
      await runTool(traced);

      expect(receiver.errors).to.deep.equal([]);
      assertToolTree(receiver.spans, variant.format);
      // The canaries were really in play: every stand-in sent its credential.
      const sent = deps.seen.map((r) => `${r.url} ${r.authorization ?? ''}`).join('\n');
      for (const secret of [CANARY.vectorKey, CANARY.aiKey, CANARY.clusterToken]) expect(sent, sent).to.contain(secret);
      assertNoCanary(receiver.rawText());
    });
  }

  it('console: the same tree as JSON lines on the configured sink', async () => {
    const sink = new ConsoleCapture();
    const tracer = createTracer(parseTracingConfig({ OTEL_TRACING_ENABLED: 'true', OTEL_EXPORTER_TYPE: 'console' }), {
      logger: new CapturingLogger(),
      serviceVersion: 'test',
      secrets: [CANARY.authToken],
      consoleSink: sink,
    });
    const traced = tracedApp({}, deps, { tracer });
    await runTool(traced);

    assertToolTree(sink.spans, 'console');
    assertNoCanary(sink.rawText());
  });
});
