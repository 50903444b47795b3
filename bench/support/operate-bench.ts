/**
 * operate's figures for `npm run bench:ai` (bench/ai.ts calls `operateFigures`):
 * svc's own time for a start (investigation loop, structured plan, dry run,
 * diff, session) and an execute (dry run again, apply, rollout check, session)
 * with every port answering at once in process, so what is measured is the
 * use case itself: templates, zod checks, the diff, JSON session copies.
 */
import { performance } from 'node:perf_hooks';
import { Operate } from '../../application/operations/operate.js';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import { FakeCluster } from '../../test/fakes/fake-cluster.js';
import { FakeLlm } from '../../test/fakes/fake-llm.js';
import { FakeSessionStore } from '../../test/fakes/fake-session-store.js';
import { FakeClock } from '../../test/support/fake-clock.js';
import { deployment, planJson, rolledOut, scaleWeb } from '../../test/support/operate-fixtures.js';
import { NoopTracer } from '../../infrastructure/tracing/noop-tracer.js';

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

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

export async function operateFigures(rounds = 200): Promise<OperateFigures> {
  const starts: number[] = [];
  const executes: number[] = [];
  let planCallBytes = 0;
  const get = { toolCalls: [{ name: 'get_resource', arguments: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' } }] };
  for (let i = 0; i < rounds + 20; i++) {
    const clock = new FakeClock();
    const cluster = new FakeCluster().put(deployment());
    cluster.onWrite = (o: KubeObject) => ({ ...o, status: rolledOut((o.spec as { replicas: number }).replicas, 3) });
    const llm = new FakeLlm([get, 'web runs 2 replicas', planJson([scaleWeb(5)])]);
    const operate = new Operate({
      llm,
      reader: cluster,
      writer: cluster,
      sessions: new FakeSessionStore({ clock }),
      tracer: new NoopTracer(),
      clock,
      limits: { timeoutMs: 60_000, maxTokens: 1_000_000 },
    });
    let t = performance.now();
    const { sessionId } = await operate.execute({ intent: 'scale web in x to 5 replicas' });
    const start = performance.now() - t;
    t = performance.now();
    await operate.execute({ sessionId, executeChoice: 1 });
    const execute = performance.now() - t;
    if (i >= 20) {
      // warm-up rounds left out
      starts.push(start);
      executes.push(execute);
    }
    planCallBytes = Buffer.byteLength(JSON.stringify(llm.calls[2].messages));
  }
  return { rounds, startP50Ms: pct(starts, 50), startP95Ms: pct(starts, 95), executeP50Ms: pct(executes, 50), executeP95Ms: pct(executes, 95), planCallBytes };
}

if (require.main === module) void operateFigures().then((f) => console.log(JSON.stringify(f, null, 2)));
