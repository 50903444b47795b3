import { expect } from 'chai';
import request from 'supertest';
import { TOKENS } from '../../infrastructure/tokens.js';
import { NoopTracer } from '../../infrastructure/tracing/noop-tracer.js';
import { OtelTracer } from '../../infrastructure/tracing/otel-tracer.js';
import { startServer } from '../../interfaces/http/server.js';
import { DependencyServer } from '../support/dependency-server.js';
import { attr, one } from '../support/span-tree.js';
import { TraceReceiver } from '../support/trace-receiver.js';
import { CANARY, tracedApp, type TracedApp } from '../support/traced-app.js';
import { appParts } from '../../infrastructure/composition-root.js';

const INPUT = { issue: 'pods of web crash-loop', sessionId: 'sess-7' };
const REMOTE_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const REMOTE_SPAN = '00f067aa0ba902b7';

describe('tracing: sampling, propagation, failures, limits, status', function () {
  let receiver: TraceReceiver;
  let deps: DependencyServer;
  let traced: TracedApp | undefined;

  const otlp = (extra: Record<string, string> = {}) => ({
    OTEL_TRACING_ENABLED: 'true',
    OTEL_EXPORTER_TYPE: 'otlp',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    ...extra,
  });
  const call = (app: TracedApp, body: object = INPUT, headers: Record<string, string> = {}) =>
    request(app.app).post('/api/v1/tools/remediate').set('authorization', `Bearer ${CANARY.authToken}`).set(headers).send(body);

  beforeEach(async () => {
    receiver = await TraceReceiver.start();
    deps = await DependencyServer.start();
  });
  afterEach(async () => {
    await traced?.tracer.shutdown();
    traced = undefined;
    await receiver.close();
    await deps.close();
  });

  it('records nothing at OTEL_SAMPLING_PROBABILITY=0.0, while the tool still runs every call', async () => {
    traced = tracedApp(otlp({ OTEL_SAMPLING_PROBABILITY: '0.0' }), deps);
    for (let i = 0; i < 5; i++) expect((await call(traced)).status).to.equal(200);
    await traced.tracer.shutdown();
    expect(deps.seen.length).to.equal(25);
    expect(receiver.spans).to.deep.equal([]);
  });

  it('records every run at 1.0: five runs, five traces of 11 spans', async () => {
    traced = tracedApp(otlp({ OTEL_SAMPLING_PROBABILITY: '1.0' }), deps);
    for (let i = 0; i < 5; i++) expect((await call(traced)).status).to.equal(200);
    await traced.tracer.shutdown();
    const traces = new Set(receiver.spans.map((s) => s.traceId));
    expect(traces.size).to.equal(5);
    expect(receiver.spans).to.have.length(55);
  });

  it("honours an incoming traceparent: the tool span joins the caller's trace and outgoing calls carry it", async () => {
    traced = tracedApp(otlp(), deps);
    const res = await call(traced, INPUT, { traceparent: `00-${REMOTE_TRACE}-${REMOTE_SPAN}-01` });
    expect(res.status).to.equal(200);
    await traced.tracer.shutdown();
    expect(new Set(receiver.spans.map((s) => s.traceId))).to.deep.equal(new Set([REMOTE_TRACE]));
    const root = one(receiver.spans, 'execute_tool remediate');
    expect(root.parentSpanId).to.equal(REMOTE_SPAN);
    const propagated = deps.seen.map((r) => r.traceparent?.split('-')[1]);
    expect(new Set(propagated)).to.deep.equal(new Set([REMOTE_TRACE]));
  });

  it("sampling is parent-based: the caller's sampled flag wins over the ratio, both ways", async () => {
    traced = tracedApp(otlp({ OTEL_SAMPLING_PROBABILITY: '0' }), deps);
    await call(traced, INPUT, { traceparent: `00-${REMOTE_TRACE}-${REMOTE_SPAN}-01` });
    await traced.tracer.shutdown();
    expect(receiver.spans).to.have.length(11);
    receiver.spans.length = 0;

    traced = tracedApp(otlp({ OTEL_SAMPLING_PROBABILITY: '1' }), deps);
    await call(traced, INPUT, { traceparent: `00-${REMOTE_TRACE}-${REMOTE_SPAN}-00` });
    await traced.tracer.shutdown();
    expect(receiver.spans).to.deep.equal([]);
  });

  it('ignores a malformed traceparent and starts a new trace', async () => {
    traced = tracedApp(otlp(), deps);
    expect((await call(traced, INPUT, { traceparent: 'not-a-trace' })).status).to.equal(200);
    await traced.tracer.shutdown();
    const root = one(receiver.spans, 'execute_tool remediate');
    expect(root.parentSpanId).to.equal(undefined);
    expect(root.traceId).to.not.equal(REMOTE_TRACE);
  });

  it('records a failed tool run on the tool span: status error, exception event, error.type', async () => {
    traced = tracedApp(otlp(), deps, {
      toolHandlers: {
        remediate: {
          async execute() {
            await fetch(`${deps.url}/fail/boom`);
            throw new Error(`cannot reach https://admin:${CANARY.clusterToken}@cluster.example`);
          },
        },
      },
    });
    const res = await call(traced);
    expect(res.status).to.equal(500);
    await traced.tracer.shutdown();
    const root = one(receiver.spans, 'execute_tool remediate');
    expect(root.status).to.equal('error');
    expect(attr(root, 'svc.tool.success')).to.equal('false');
    expect(attr(root, 'error.type')).to.equal('EXECUTION_ERROR');
    expect(root.events.map((e) => e.name)).to.deep.equal(['exception']);
    expect(receiver.rawText()).to.not.include(CANARY.clusterToken);
  });

  it('OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT cuts values after scrubbing, so no prefix of a secret survives a cut', async () => {
    const secret = 'zq7Xw9mPartialLeakGuard';
    const body = { issue: 'x', evidence: `see https://u:${secret}@git.example.com/r.git` };
    const json = JSON.stringify(body);
    const limit = json.indexOf(secret) + 8; // a cut in the middle of the secret as written
    traced = tracedApp(otlp({ OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: String(limit) }), deps);
    expect((await call(traced, body)).status).to.equal(200);
    await traced.tracer.shutdown();
    const input = attr(one(receiver.spans, 'execute_tool remediate'), 'gen_ai.tool.input')!;
    expect(input).to.have.length(limit);
    expect(input).to.equal(json.replace(`u:${secret}`, '***:***').slice(0, limit));
    expect(receiver.rawText()).to.not.include(secret.slice(0, 6));
  });

  it('keeps a large input whole when no limit is set (SPEC.md: no limit by default)', async () => {
    const body = { issue: 'x', evidence: 'e'.repeat(20000) };
    traced = tracedApp(otlp(), deps);
    expect((await call(traced, body)).status).to.equal(200);
    await traced.tracer.shutdown();
    expect(attr(one(receiver.spans, 'execute_tool remediate'), 'gen_ai.tool.input')).to.equal(JSON.stringify(body));
  });

  it('reports its status in the version tool, and an exporter that fails', async () => {
    traced = tracedApp(otlp({ OTEL_SERVICE_NAME: 'svc-test' }), deps);
    const version = async () =>
      (await request(traced!.app).post('/api/v1/tools/version').set('authorization', `Bearer ${CANARY.authToken}`).send({})).body.data.result.system.tracing;
    expect(await version()).to.deep.equal({ enabled: true, exporter: 'otlp', serviceName: 'svc-test', status: 'active' });

    receiver.failWith = 500;
    await (traced.tracer as OtelTracer).flush();
    const status = await version();
    expect(status.status).to.match(/^export failing: /);
    expect(traced.logger.lines.some((l) => l.level === 'warn' && l.msg === 'tracing export failed')).to.equal(true);
  });

  it('is a no-op when OTEL_TRACING_ENABLED is not true: no spans, ports not wrapped, status says how to enable', async () => {
    traced = tracedApp({ OTEL_EXPORTER_TYPE: 'otlp' }, deps);
    expect(traced.tracer).to.be.instanceOf(NoopTracer);
    expect((await call(traced)).status).to.equal(200);
    const version = await request(traced.app).post('/api/v1/tools/version').set('authorization', `Bearer ${CANARY.authToken}`).send({});
    expect(version.body.data.result.system.tracing).to.deep.equal({
      enabled: false,
      exporter: 'otlp',
      serviceName: 'svc-mcp',
      status: 'disabled (set OTEL_TRACING_ENABLED=true to enable)',
    });
    // the port instances are the adapters themselves, not span decorators
    const store = traced.container.resolve(TOKENS.VectorStore);
    expect(Object.getPrototypeOf(store).constructor.name).to.equal('HttpBackedVectorStore');
    expect(deps.seen.every((r) => r.traceparent === undefined)).to.equal(true);
    expect(receiver.requests).to.deep.equal([]);
  });

  it('flushes pending spans on graceful shutdown of the listening server', async () => {
    traced = tracedApp(otlp({ HOST: '127.0.0.1', PORT: '0' }), deps);
    const running = await startServer(appParts(traced.container));
    const res = await fetch(`${running.url}/api/v1/tools/remediate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${CANARY.authToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(INPUT),
    });
    expect(res.status).to.equal(200);
    expect(receiver.spans, 'nothing exported before the batch is due').to.deep.equal([]);
    await running.close();
    expect(receiver.spans).to.have.length(11);
    expect(traced.tracer.status().status).to.equal('shut down');
  });

  it('sends the userinfo of OTEL_EXPORTER_JAEGER_ENDPOINT as basic auth, never inside a span', async () => {
    const password = 'jaeger-collector-pw-81f2';
    const endpoint = `${receiver.url.replace('http://', `http://svc:${password}@`)}/api/traces`;
    traced = tracedApp({ OTEL_TRACING_ENABLED: 'true', OTEL_EXPORTER_TYPE: 'jaeger', OTEL_EXPORTER_JAEGER_ENDPOINT: endpoint }, deps);
    expect((await call(traced)).status).to.equal(200);
    await traced.tracer.shutdown();
    expect(receiver.spans).to.have.length(11);
    expect(receiver.requests[0]!.authorization).to.equal(`Basic ${Buffer.from(`svc:${password}`).toString('base64')}`);
    expect(receiver.rawText()).to.not.include(password);
  });

  it('runs one OpenTelemetry tracer per process', () => {
    traced = tracedApp(otlp(), deps);
    expect(() => tracedApp(otlp(), deps)).to.throw(/already running/);
  });
});
