/**
 * AI tools benchmark: svc's own time per model round trip and per cluster
 * call, and the bytes sent to the model along an investigation, with the real
 * adapters (openai SDK, the Kubernetes client) talking over loopback to the
 * in-process stand-ins (scripted chat server, Kubernetes API stand-in with its
 * simulation clock stopped) that answer at once. The stand-ins' own handling
 * time is measured per call and subtracted ("svc own"). Run with
 * `npm run bench:ai` (BENCH_RUNS investigations, default 12, after 2 warm-ups).
 * Target: svc own p50 < 2 ms per model round trip, on every provider's adapter
 * (openai, anthropic, bedrock: each against its wire stand-in; Bedrock's
 * includes SigV4 signing, the stand-in's verification is stand-in time).
 * BENCH_PROVIDERS=openai,anthropic,bedrock picks some.
 *
 * Sections: remediate (below), operate (bench/support/operate-bench.ts: its
 * use case on in-process fakes) and the deployment workflow
 * (bench/support/workflow-bench.ts: the five tools through the real server).
 * BENCH_SECTIONS=remediate,operate,workflow picks some.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { KubeConfig } from '@kubernetes/client-node';
import { Remediate } from '../application/remediation/remediate.js';
import { readOnlyView } from '../domain/ports/cluster-reader.js';
import { SystemClock } from '../infrastructure/clock/system-clock.js';
import { KubernetesClusterClient } from '../infrastructure/kubernetes/kubernetes-cluster-client.js';
import { parseLlmConfig } from '../infrastructure/config/llm-config.js';
import { createLlmProvider } from '../infrastructure/llm/create-llm-provider.js';
import { FileSessionStore } from '../infrastructure/sessions/file-session-store.js';
import { NoopTracer } from '../infrastructure/tracing/noop-tracer.js';
import { KubeApiServer } from '../lab/sandbox/kube/kube-api-server.js';
import { PROVIDERS, startModelStandIn, type ModelStandIn, type Provider } from '../test/support/model-stand-ins.js';
import type { Script } from '../test/support/scripted-model.js';
import { analysisAnswer, callFn, webDeployment } from '../test/support/remediation-fixtures.js';
import { openSafety } from '../test/fakes/null-safety.js';
import { CallSamples, ms, percentile, StandInTimer, timedLlm, timedReader } from './support/ai-bench-kit.js';
import { operateFigures } from './support/operate-bench.js';
import { formatWorkflowMeasurement, measureWorkflow } from './support/workflow-bench.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 12);
const WARMUP = 2;
const innerServer = (s: KubeApiServer) => (s as unknown as { server: http.Server }).server;
/** The model stand-in's HTTP server (Bedrock's, not its STS: credentials are fetched once, before the warm-ups). */
const modelServer = (chat: ModelStandIn): http.Server => {
  const server = (chat as unknown as { server: { server?: http.Server; http?: { server: http.Server } } }).server;
  return server.http?.server ?? server.server!;
};

/** A cluster worth reading: 20 healthy Deployments of 2 pods, one broken one, a long log. */
function seed(kube: KubeApiServer): { bigLogPod: string; brokenPod: string } {
  for (let i = 0; i < 20; i++) {
    const d = webDeployment('nginx:1.25', undefined, 2) as Record<string, any>;
    const labels = { app: `app-${i}` };
    kube.create({
      ...d,
      metadata: { ...d.metadata, name: `app-${i}`, labels },
      spec: { ...d.spec, selector: { matchLabels: labels }, template: { ...d.spec.template, metadata: { labels } } },
    });
  }
  kube.create(webDeployment('nginx:9.9-missing'));
  kube.settle();
  kube.autoTick = false; // answer at once: no simulation step on GETs
  const pods = [...kube.objects.values()].filter((o) => o.kind === 'Pod');
  const bigLogPod = pods.find((p) => p.metadata.name.startsWith('app-0-'))!.metadata.name;
  const brokenPod = pods.find((p) => p.metadata.name.startsWith('web-'))!.metadata.name;
  kube.logs.set(
    `x/${bigLogPod}/app`,
    Array.from(
      { length: 3000 },
      (_, i) => `2026-11-23T10:00:${String(i % 60).padStart(2, '0')}Z INFO request ${i} served in ${i % 97} ms path=/api/items/${i}\n`,
    ).join(''),
  );
  return { bigLogPod, brokenPod };
}

/** 23 function calls cycling through every read function, an unusable analysis, then a usable one: 25 model calls. */
function investigationScript(pods: { bigLogPod: string; brokenPod: string }): Script[] {
  const cycle = [
    callFn('list_resources', { apiVersion: 'v1', kind: 'Pod' }),
    callFn('describe_resource', { apiVersion: 'v1', kind: 'Pod', namespace: 'x', name: pods.brokenPod }),
    callFn('get_pod_logs', { namespace: 'x', pod: pods.bigLogPod, tailLines: 300 }),
    callFn('list_events', { namespace: 'x' }),
    callFn('get_resource', { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'x', name: 'web' }),
    callFn('list_resources', { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'x' }),
    callFn('list_api_resources', {}),
  ];
  return [...Array.from({ length: 23 }, (_, i) => cycle[i % cycle.length]), { content: 'not json yet' }, { content: analysisAnswer({ actions: [] }) }];
}

interface ProviderFigures {
  provider: Provider;
  ownP50: number;
  firstBytes: number;
  analysisBytes: number;
  largestBytes: number;
}
const summary: ProviderFigures[] = [];

async function remediateSection(provider: Provider): Promise<void> {
  const chat = await startModelStandIn(provider);
  const kube = await KubeApiServer.start();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-bench-ai-'));
  try {
    const pods = seed(kube);
    const chatTimer = new StandInTimer(modelServer(chat));
    const kubeTimer = new StandInTimer(innerServer(kube));
    const kc = new KubeConfig();
    kc.loadFromFile(kube.writeKubeconfig());
    const client = new KubernetesClusterClient(kc, { requestTimeoutMs: 30000 });
    const llm = createLlmProvider(parseLlmConfig({ ...chat.env(), SVC_LLM_MAX_RETRIES: '0', SVC_LLM_TIMEOUT_MS: '30000' }));
    const clock = new SystemClock();
    const sessions = new FileSessionStore({ dir: path.join(dataDir, 'sessions'), ttlMs: 3600_000, clock });
    const bytes: number[][] = [];
    const totals = { wall: 0, model: 0, cluster: 0, calls: 0 };
    const modelSamples = new CallSamples();
    const clusterSamples = new CallSamples();
    // built once, as the composition root does
    const remediate = new Remediate({
      llm: timedLlm(llm, chatTimer, modelSamples),
      reader: timedReader(readOnlyView(client), kubeTimer, clusterSamples),
      writer: client,
      sessions,
      tracer: new NoopTracer(),
      clock,
      limits: { timeoutMs: 300000, maxTokens: 10_000_000 },
      ...openSafety(client, { reader: readOnlyView(client) }),
    });
    for (let run = 0; run < WARMUP + RUNS; run++) {
      if (run === WARMUP) [modelSamples, clusterSamples].forEach((s) => s.clear());
      const first = chatTimer.bytes.length;
      chat.script(...investigationScript(pods));
      const [m0, c0] = [sum(modelSamples.wall), sum(clusterSamples.wall)];
      const t0 = performance.now();
      const view = await remediate.execute({ issue: 'web in namespace x never becomes ready' });
      if (view.investigation.modelCalls !== 25) throw new Error(`expected 25 model calls, got ${view.investigation.modelCalls}`);
      if (run < WARMUP) continue;
      totals.wall += performance.now() - t0;
      totals.model += sum(modelSamples.wall) - m0;
      totals.cluster += sum(clusterSamples.wall) - c0;
      totals.calls += 25;
      bytes.push(chatTimer.bytes.slice(first));
    }
    console.log(`\n### remediate on ${provider}: one investigation = 23 function calls + analysis + its retry (25 model calls), ${RUNS} runs\n`);
    console.log(CallSamples.header());
    console.log(modelSamples.row('model round trip (chat)'));
    console.log(clusterSamples.row('cluster call (read port)'));
    const rest = (totals.wall - totals.model - totals.cluster) / totals.calls;
    console.log(`\nRest of svc per model round trip (loop, function dispatch, result cutting, analysis parsing, session write): ${ms(rest)} ms`);
    console.log(`svc own per round trip, model call + its share of the rest: p50 ${ms(percentile(modelSamples.own, 50) + rest)} ms (target < 2 ms)`);
    const byPosition = (from: number, to: number) => modelSamples.own.filter((_, i) => i % 25 >= from - 1 && i % 25 <= to - 1);
    console.log(
      `svc own per model round trip by position: calls 1-5 p50 ${ms(percentile(byPosition(1, 5), 50))} ms, calls 20-25 p50 ${ms(percentile(byPosition(20, 25), 50))} ms (the request body grows)`,
    );
    const at = (n: number) => bytes.map((b) => b[n - 1]);
    console.log('\n| model call of the investigation | bytes sent (request body) |\n|---|---:|');
    for (const n of [1, 10, 24, 25]) console.log(`| ${n}${n === 24 ? ' (analysis)' : n === 25 ? ' (analysis retry)' : ''} | ${percentile(at(n), 50)} |`);
    console.log(`| largest of any call | ${Math.max(...bytes.flat())} |`);
    summary.push({
      provider,
      ownP50: percentile(modelSamples.own, 50) + rest,
      firstBytes: percentile(at(1), 50),
      analysisBytes: percentile(at(24), 50),
      largestBytes: Math.max(...bytes.flat()),
    });
  } finally {
    await chat.close();
    await kube.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function sum(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

async function operateSection(): Promise<void> {
  const f = await operateFigures();
  console.log(`\n### operate: the use case on in-process fakes, ${f.rounds} rounds\n`);
  console.log('| step | p50 ms | p95 ms |\n|---|---:|---:|');
  console.log(`| start (3 model calls, plan, dry run, diff, session) | ${ms(f.startP50Ms)} | ${ms(f.startP95Ms)} |`);
  console.log(`| execute (dry run, apply, rollout check, session) | ${ms(f.executeP50Ms)} | ${ms(f.executeP95Ms)} |`);
  console.log(`\nBytes of the plan call's messages: ${f.planCallBytes}`);
}

async function workflowSection(): Promise<void> {
  console.log('\n### deployment workflow: recommend to deployManifests through the real server\n');
  console.log(formatWorkflowMeasurement(await measureWorkflow({ runs: 3 })));
}

async function remediateOnEveryProvider(): Promise<void> {
  const wanted = (process.env.BENCH_PROVIDERS?.split(',') ?? PROVIDERS) as Provider[];
  for (const provider of PROVIDERS) if (wanted.includes(provider)) await remediateSection(provider);
  console.log('\n### every provider: svc own per model round trip and request bytes on the wire\n');
  console.log('| provider | svc own p50 ms (target < 2) | bytes, call 1 | bytes, analysis | bytes, largest |\n|---|---:|---:|---:|---:|');
  for (const f of summary) console.log(`| ${f.provider} | ${ms(f.ownP50)} | ${f.firstBytes} | ${f.analysisBytes} | ${f.largestBytes} |`);
}

const SECTIONS: Record<string, () => Promise<void>> = { remediate: remediateOnEveryProvider, operate: operateSection, workflow: workflowSection };

async function main(): Promise<void> {
  console.log(`Node ${process.version}, ${process.platform}/${process.arch}; stand-ins in this process on 127.0.0.1`);
  const wanted = process.env.BENCH_SECTIONS?.split(',') ?? Object.keys(SECTIONS);
  for (const [name, section] of Object.entries(SECTIONS)) if (wanted.includes(name)) await section();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
