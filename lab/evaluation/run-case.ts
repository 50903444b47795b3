import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { svcAdmin, type Caller } from '../../domain/auth/caller.js';
import { DomainError } from '../../domain/errors.js';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import type { CaseObservation } from '../../domain/evaluation/case-result.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import { appParts, buildContainer } from '../../infrastructure/composition-root.js';
import { loadConfig } from '../../infrastructure/config/config.js';
import { ScenarioCluster, writeSandboxesKubeconfig } from '../sandbox/scenario-cluster.js';
import { notRestored, observedWrites, snapshot } from './case-writes.js';
import { flowOf } from './case-flow.js';
import { leakedSecrets } from './leak-check.js';
import type { LoadedScenario } from './scenario-loader.js';
import { proposedWrites } from './proposals.js';
import type { ObservedLlm } from './transcript-llm.js';

/** The caller every case runs as: an admin, so svc's own gates (not the caller's role) decide. */
export const EVAL_CALLER: Caller = svcAdmin('static', 'svc-eval');

/** The model's settings are taken from the environment; everything else a case runs with is its own. */
const MODEL_VARIABLES = /^(OPENAI_|ANTHROPIC_|AWS_|SVC_LLM_|SVC_AI_|HOME$)/;

export function caseEnvironment(env: NodeJS.ProcessEnv, kubeconfig: string, dataDir: string): Record<string, string> {
  const model = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => MODEL_VARIABLES.test(e[0]) && e[1] !== undefined));
  return {
    ...model,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    SVC_DATA_DIR: dataDir,
    KUBECONFIG: kubeconfig,
    OTEL_TRACING_ENABLED: 'false',
    // the sandbox's controllers run in milliseconds: svc's verdict takes one look, not a 60 s window
    SVC_VERIFY_WINDOW_MS: env.SVC_VERIFY_WINDOW_MS ?? '0',
  };
}

/**
 * Runs one scenario once through svc's real use cases, in process: a fresh
 * sandbox, a fresh data directory (sessions, ledger), the real Kubernetes
 * adapter against the sandbox, the given model. Then judges the sandbox's
 * health, collects the writes, and reverts every change through the ledger.
 */
export async function runCase(loaded: LoadedScenario, llm: ObservedLlm, repeat: number, env: NodeJS.ProcessEnv): Promise<CaseObservation> {
  const { scenario } = loaded;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-eval-'));
  const kubeconfig = path.join(dataDir, 'kubeconfig.yaml');
  const members = await startMembers(loaded, kubeconfig);
  const fleet = members.length > 1;
  const { sandboxClusterClient } = await import('./sandbox-cluster-client.js');
  const parts = appParts(
    buildContainer(loadConfig({ ...caseEnvironment(env, kubeconfig, dataDir), ...(fleet ? fleetEnvironment(members, dataDir) : {}) }), {
      llm: llm as LlmProvider,
      ...(fleet
        ? { clusters: Object.fromEntries(members.map((m) => [m.name, sandboxClusterClient(kubeconfig, m.name)])) }
        : { cluster: sandboxClusterClient(kubeconfig) }),
    }),
  );
  try {
    const marks = members.map((m) => ({ ...m, before: snapshot(m.sandbox.server), from: m.sandbox.server.requests.length }));
    const execute = parts.tools.execute;
    const started = Date.now();
    const flow = await flowOf(scenario, (toolName, params) =>
      execute.execute({ toolName, params, requestId: `eval-${scenario.name}-${repeat}`, caller: EVAL_CALLER }).then((r) => r.result),
    );
    const latencyMs = Date.now() - started;
    // each cluster judged by the scenario's rules; a problem names its cluster when there are several
    const named = (name: string, text: string) => (fleet ? `${name}: ${text}` : text);
    const healths = marks.map((m) => ({ name: m.name, ...m.sandbox.health() }));
    const health = { healthy: healths.every((h) => h.healthy), problems: healths.flatMap((h) => h.problems.map((p) => named(h.name, p))) };
    const perCluster = marks.map((m) => ({ m, writes: observedWrites(m.sandbox.server, m.before, m.from) }));
    const writes = perCluster.flatMap(({ m, writes: w }) => w.map((x) => (fleet ? { ...x, cluster: m.name } : x)));
    const reverts = await revertAll(parts.changes.ledger, parts.changes.revert);
    for (const { m, writes: w } of perCluster) reverts.problems.push(...notRestored(m.sandbox.server, m.before, w).map((p) => named(m.name, p)));
    // what the model proposed is looked up in its cluster's state before the case (in a fleet, the answer's cluster)
    const beforeIn = (cluster: string | undefined) => marks.filter((m) => !fleet || m.name === cluster).flatMap((m) => [...m.before.values()]);
    return {
      scenario: scenario.name,
      tags: scenario.tags,
      repeat,
      model: llm.status().model ?? 'unknown',
      status: flow.status,
      ...(flow.error || llm.failure ? { error: flow.error ?? llm.failure } : {}),
      diagnosis: flow.diagnosis,
      risk: flow.risk,
      writes,
      ...(fleet ? { clusters: members.map((m) => m.name) } : {}),
      healthy: health.healthy,
      healthProblems: health.problems,
      reverts,
      proposed: proposedWrites(
        llm.answers,
        (kind, namespace, name, cluster) =>
          beforeIn(cluster).find((o) => o.kind === kind && o.metadata.name === name && (namespace === undefined || o.metadata.namespace === namespace)) as
            KubeObject | undefined,
      ),
      leaked: leakedSecrets(loaded, llm.sent),
      tokensRead: llm.tokensRead(scenario.expect.facts.flatMap((f) => (f.readFrom ? [f.readFrom] : []))),
      modelCalls: llm.sent.length,
      tokens: { input: llm.usage.inputTokens, output: llm.usage.outputTokens },
      latencyMs,
    };
  } finally {
    for (const stop of parts.onShutdown) await stop().catch(() => undefined);
    await Promise.all(members.map((m) => m.sandbox.close()));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** One sandbox cluster of a case and the kubeconfig context (the cluster name svc serves) it is under. */
interface CaseMember {
  name: string;
  sandbox: ScenarioCluster;
}

/**
 * The case's sandbox clusters behind one kubeconfig: one, as always, or the
 * scenario's `cluster.clusters` N, `cluster-1` .. `cluster-N`, each holding
 * the objects `cluster.placement` puts in it.
 */
async function startMembers(loaded: LoadedScenario, kubeconfig: string): Promise<CaseMember[]> {
  const n = loaded.scenario.cluster.clusters ?? 1;
  if (n === 1) {
    const sandbox = await ScenarioCluster.start(loaded);
    sandbox.writeKubeconfig(kubeconfig);
    return [{ name: `sandbox-${loaded.scenario.name}`, sandbox }];
  }
  const members: CaseMember[] = [];
  try {
    for (let member = 1; member <= n; member++) members.push({ name: `cluster-${member}`, sandbox: await ScenarioCluster.start(loaded, { member }) });
  } catch (e) {
    await Promise.all(members.map((m) => m.sandbox.close()));
    throw e;
  }
  writeSandboxesKubeconfig(
    kubeconfig,
    members.map((m) => ({ sandbox: m.sandbox, context: m.name })),
  );
  return members;
}

/** svc serving every cluster of the case (SVC_CLUSTERS), each labelled `member=<n>` and all `case=eval`, for a clusterSelector. */
function fleetEnvironment(members: readonly CaseMember[], dataDir: string): Record<string, string> {
  const file = path.join(dataDir, 'clusters.yaml');
  writeFileSync(file, `clusters:\n${members.map((m, i) => `  ${m.name}:\n    labels: {member: "${i + 1}", case: eval}\n`).join('')}`);
  return { SVC_CLUSTERS: members.map((m) => m.name).join(','), SVC_CLUSTERS_FILE: file };
}

/** Reverts every applied change of the case through the ledger, newest first; each refusal is a problem. */
async function revertAll(
  ledger: { list: (f: object, p: { limit: number }) => Promise<{ entries: { id: string; type: string }[] }> },
  revert: { execute: (i: { id: string }, c: Caller) => Promise<unknown> },
): Promise<{ entries: number; problems: string[] }> {
  const { entries } = await ledger.list({ outcome: 'applied' }, { limit: 100 });
  const changes = entries.filter((e) => e.type === 'change');
  const problems: string[] = [];
  for (const e of changes) {
    try {
      await revert.execute({ id: e.id }, EVAL_CALLER);
    } catch (err) {
      // svc's own verdict may have reverted it already (onFailure revert): undone, not a problem
      if (err instanceof DomainError && typeof (err.details as { revertedBy?: unknown } | undefined)?.revertedBy === 'string') continue;
      problems.push(`${e.id}: ${err instanceof DomainError || err instanceof Error ? err.message : String(err)}`);
    }
  }
  return { entries: changes.length, problems };
}
