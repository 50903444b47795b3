import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { projectRoot } from '../../infrastructure/project-root.js';
import { one } from '../support/span-tree.js';
import { TraceReceiver } from '../support/trace-receiver.js';

const MAIN = path.join(projectRoot(), 'dist', 'interfaces', 'main.js');

function run(env: Record<string, string>) {
  const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => out };
}

async function waitFor(predicate: () => boolean, what: string) {
  for (let i = 0; i < 200 && !predicate(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!predicate()) throw new Error(`timed out waiting for ${what}`);
}

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
      // the version tool only probes the (embedded) store: probes are not traced
      expect(receiver.spans.map((s) => s.name)).to.deep.equal(['execute_tool version']);
    } finally {
      await receiver.close();
    }
  });
});
