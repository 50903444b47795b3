/**
 * npm run bench:startup — start-up time (spawn to the first /healthz answer)
 * and RSS right after it, over fresh processes, for two configurations:
 * the embedded defaults, and everything configured (a cluster, an
 * OpenAI-compatible provider, Qdrant and OTLP tracing, all against the
 * loopback stand-ins of test/support). Prints medians; targets from issue 15:
 * defaults <= 0.5 s and <= 100 MB; all configured <= 0.8 s and <= 130 MB.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KubeApiServer } from '../lab/sandbox/kube/kube-api-server.js';
import { OpenAiChatServer } from '../test/support/openai-chat-server.js';
import { QdrantServer } from '../test/support/qdrant-server.js';
import { TraceReceiver } from '../test/support/trace-receiver.js';

const RUNS = Number(process.env.RUNS ?? 7);
const MAIN = path.join(__dirname, '..', 'interfaces', 'main.js');

async function startOnce(env: Record<string, string>): Promise<{ ms: number; rssMb: number }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-startup-'));
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', SVC_DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const m = /"url":"([^"]+)"/.exec(out);
        if (m) {
          clearInterval(timer);
          resolve(m[1]);
        }
      }, 2);
      child.once('exit', (code) => reject(new Error(`svc exited with ${code}: ${out.slice(0, 500)}`)));
    });
    const res = await fetch(`${url}/healthz`);
    if (!res.ok) throw new Error(`/healthz answered ${res.status}`);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024;
    return { ms, rssMb: rss };
  } finally {
    child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(label: string, env: Record<string, string>, target: { ms: number; mb: number }): Promise<void> {
  const runs: { ms: number; rssMb: number }[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await startOnce(env));
  const ms = median(runs.map((r) => r.ms));
  const mb = median(runs.map((r) => r.rssMb));
  console.log(
    `| ${label} | ${ms.toFixed(0)} ms | ${mb.toFixed(0)} MB | <= ${target.ms} ms, <= ${target.mb} MB | ${ms <= target.ms && mb <= target.mb ? 'met' : 'missed'} |`,
  );
}

async function main(): Promise<void> {
  const kube = await KubeApiServer.start();
  const chat = await OpenAiChatServer.start();
  const qdrant = await new QdrantServer().start();
  const traces = await TraceReceiver.start();
  try {
    console.log(`start-up to first /healthz answer and RSS after it, median of ${RUNS} fresh processes (node ${process.version})\n`);
    console.log('| configuration | start-up | RSS | target | |');
    console.log('|---|---:|---:|---|---|');
    await measure('embedded defaults', {}, { ms: 500, mb: 100 });
    await measure(
      'cluster + OpenAI-compatible + Qdrant + OTLP tracing',
      {
        KUBECONFIG: kube.writeKubeconfig(),
        OPENAI_API_KEY: chat.apiKey,
        OPENAI_BASE_URL: chat.baseUrl,
        SVC_LLM_MODEL: 'gpt-test',
        QDRANT_URL: qdrant.url,
        OTEL_TRACING_ENABLED: 'true',
        OTEL_EXPORTER_TYPE: 'otlp',
        OTEL_EXPORTER_OTLP_ENDPOINT: traces.url,
      },
      { ms: 800, mb: 130 },
    );
  } finally {
    await Promise.all([kube.close(), chat.close(), qdrant.stop(), traces.close()]);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
