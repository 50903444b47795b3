import { expect } from 'chai';
import { runSvc as run, waitFor } from '../support/svc-process.js';
import { one } from '../support/span-tree.js';
import { TraceReceiver } from '../support/trace-receiver.js';

describe('tracing in the server process', () => {
  it('refuses to start with OTEL_EXPORTER_TYPE=otlp and no endpoint, saying what to set', async () => {
    const p = run({ OTEL_TRACING_ENABLED: 'true', OTEL_EXPORTER_TYPE: 'otlp' });
    expect(await p.exited).to.equal(2);
    expect(p.output()).to.include('OTEL_EXPORTER_OTLP_ENDPOINT is required when OTEL_EXPORTER_TYPE=otlp');
  });

  it('refuses a sampling probability out of range at start-up', async () => {
    const p = run({ OTEL_TRACING_ENABLED: 'true', OTEL_SAMPLING_PROBABILITY: '1.5' });
    expect(await p.exited).to.equal(2);
    expect(p.output()).to.include('OTEL_SAMPLING_PROBABILITY must be between 0 and 1, got 1.5');
  });

  it('exports the spans of a tool run when SIGTERM drains it', async () => {
    const receiver = await TraceReceiver.start();
    try {
      const p = run({
        HOST: '127.0.0.1',
        PORT: '0',
        OTEL_TRACING_ENABLED: 'true',
        OTEL_EXPORTER_TYPE: 'otlp',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_SERVICE_NAME: 'svc-process-test',
      });
      await waitFor(() => /svc listening/.test(p.output()), 'listening');
      const url = /"url":"([^"]+)"/.exec(p.output())![1];
      const res = await fetch(`${url}/api/v1/tools/version`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      const tracing = ((await res.json()) as { data: { result: { system: { tracing: unknown } } } }).data.result.system.tracing;
      expect(tracing).to.deep.equal({ enabled: true, exporter: 'otlp', serviceName: 'svc-process-test', status: 'active' });
      expect(receiver.spans, 'batched, not yet sent').to.deep.equal([]);

      p.child.kill('SIGTERM');
      expect(await p.exited).to.equal(0);
      const root = one(receiver.spans, 'execute_tool version');
      expect(root.serviceName).to.equal('svc-process-test');
      // the version tool's dependency probes are children of its span (the adapters' own probes make no spans of their own)
      expect(receiver.spans.map((s) => s.name).sort()).to.deep.equal([
        'execute_tool version',
        'probe embeddings',
        'probe kubernetes',
        'probe shared-state',
        'probe vectordb',
      ]);
      for (const s of receiver.spans.filter((x) => x !== root)) expect(s.parentSpanId).to.equal(root.spanId);
    } finally {
      await receiver.close();
    }
  });
});
