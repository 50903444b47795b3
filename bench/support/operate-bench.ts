/**
 * operate's figures for `npm run bench:ai` (bench/ai.ts calls `operateFigures`):
 * svc's own time for a start (investigation loop, structured plan, dry run,
 * diff, session) and an execute (dry run again, apply, rollout check, session)
 * with every port answering at once in process, so what is measured is the
 * use case itself: templates, zod checks, the diff, JSON session copies.
 */
import { performance } from 'node:perf_hooks';
import { Operate, type OperateDeps } from '../../application/operations/operate.js';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import type { SessionStore } from '../../domain/ports/session-store.js';
import { FakeCluster } from '../../test/fakes/fake-cluster.js';
import { FakeLlm } from '../../test/fakes/fake-llm.js';
import { FakeSessionStore } from '../../test/fakes/fake-session-store.js';
import { openSafety } from '../../test/fakes/null-safety.js';
import { FakeClock } from '../../test/support/fake-clock.js';
import { deployment, planJson, rolledOut, scaleWeb } from '../../test/support/operate-fixtures.js';
import { NoopTracer } from '../../infrastructure/tracing/noop-tracer.js';
import { percentile } from './ai-bench-kit.js';

export interface OperateFigures {
  rounds: number;
  /** Milliseconds per start: 3 model calls (one function call), the plan, one dry run and diff, session create. */
  startP50Ms: number;
  startP95Ms: number;
  /** Milliseconds per execute: dry run, apply, rollout check, object state, session updates. */
  executeP50Ms: number;
  executeP95Ms: number;
  /** UTF-8 bytes of the messages sent on the plan (3rd) call of a start. */
  planCallBytes: number;
}

/** One operate round on `sessions`: start, then execute, timed apart. */
export interface OperateRound {
  startMs: number;
  executeMs: number;
  /** UTF-8 bytes of the messages sent on the plan (3rd) call of the start. */
  planCallBytes: number;
}

/**
 * One scale-up through operate with every port answering at once: a start
 * (one function call, the plan, a dry run, the session created in
 * `sessions`), then its execute (approval 1); throws unless it executed.
 */
export async function operateRound(sessions: SessionStore, clock: OperateDeps['clock']): Promise<OperateRound> {
  const cluster = new FakeCluster().put(deployment());
  cluster.onWrite = (o: KubeObject) => ({ ...o, status: rolledOut((o.spec as { replicas: number }).replicas, 3) });
  const get = { toolCalls: [{ name: 'get_resource', arguments: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' } }] };
  const llm = new FakeLlm([get, 'web runs 2 replicas', planJson([scaleWeb(5)])]);
  const operate = new Operate({
    llm,
    reader: cluster,
    writer: cluster,
    sessions,
    tracer: new NoopTracer(),
    clock,
    limits: { timeoutMs: 60_000, maxTokens: 1_000_000 },
    ...openSafety(cluster),
  });
  let t = performance.now();
  const { sessionId } = await operate.execute({ intent: 'scale web in x to 5 replicas' });
  const startMs = performance.now() - t;
  t = performance.now();
  const done = await operate.execute({ sessionId, executeChoice: 1 });
  const executeMs = performance.now() - t;
  if ((done as { status?: string }).status !== 'executed') throw new Error(`execute: ${JSON.stringify(done).slice(0, 200)}`);
  return { startMs, executeMs, planCallBytes: Buffer.byteLength(JSON.stringify(llm.calls[2].messages)) };
}

export async function operateFigures(rounds = 200): Promise<OperateFigures> {
  const starts: number[] = [];
  const executes: number[] = [];
  let planCallBytes = 0;
  for (let i = 0; i < rounds + 20; i++) {
    const clock = new FakeClock();
    const round = await operateRound(new FakeSessionStore({ clock }), clock);
    if (i >= 20) {
      // warm-up rounds left out
      starts.push(round.startMs);
      executes.push(round.executeMs);
    }
    planCallBytes = round.planCallBytes;
  }
  return {
    rounds,
    startP50Ms: percentile(starts, 50),
    startP95Ms: percentile(starts, 95),
    executeP50Ms: percentile(executes, 50),
    executeP95Ms: percentile(executes, 95),
    planCallBytes,
  };
}
