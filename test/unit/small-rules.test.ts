import { expect } from 'chai';
import { namespacesRead } from '../../application/ai/namespaces-read.js';
import { AI_PROVIDER, CLUSTER_HINT, KUBERNETES_CLUSTER, requireConfigured } from '../../application/ai/require-configured.js';
import { RepeatingPass } from '../../application/ledger/repeating-pass.js';
import { ConcurrencyLimit } from '../../application/prompts/concurrency-limit.js';
import { NotConfiguredError } from '../../domain/errors.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import { echo } from '../../domain/uploads/display.js';
import { issueLines } from '../../domain/validation/zod-issues.js';
import { z } from 'zod';
import { FakeClock } from '../support/fake-clock.js';

const llm = (configured: boolean, hint?: string) =>
  ({ status: () => ({ configured, provider: configured ? 'openai' : 'none', ...(hint ? { hint } : {}) }) }) as unknown as LlmProvider;
const cluster = (context: string) => ({ context: () => context });

describe('requireConfigured (application/ai/require-configured.ts)', () => {
  it('names every missing setting at once, the model first, with its provider`s hint', () => {
    expect(() => requireConfigured({ llm: llm(false, 'set ANTHROPIC_API_KEY'), cluster: cluster('') }))
      .to.throw(NotConfiguredError)
      .with.property('message', `${AI_PROVIDER} and the Kubernetes cluster are not configured: set ANTHROPIC_API_KEY; ${CLUSTER_HINT}`);
    expect(() => requireConfigured({ llm: llm(false) })).to.throw(`${AI_PROVIDER} is not configured: set OPENAI_API_KEY`);
    expect(() => requireConfigured({ cluster: cluster('') })).to.throw(`${KUBERNETES_CLUSTER} is not configured: ${CLUSTER_HINT}`);
  });

  it('passes when what the step needs is set, and asks nothing of what it does not need', () => {
    expect(() => requireConfigured({ llm: llm(true), cluster: cluster('kind-svc') })).not.to.throw();
    expect(() => requireConfigured({ cluster: cluster('kind-svc') })).not.to.throw();
    expect(() => requireConfigured({})).not.to.throw();
  });
});

describe('ConcurrencyLimit (application/prompts/concurrency-limit.ts)', () => {
  it('runs at most max at once; the others wait in arrival order, also after a failure', async () => {
    const limit = new ConcurrencyLimit(2);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const gates: (() => void)[] = [];
    const task = (n: number, fail = false) =>
      limit.run(async () => {
        running++;
        most = Math.max(most, running);
        order.push(n);
        await new Promise<void>((r) => gates.push(r));
        running--;
        if (fail) throw new Error(`task ${n} failed`);
        return n;
      });
    const all = [task(1, true), task(2), task(3), task(4)].map((p) => p.catch((e: Error) => e.message));
    await new Promise((r) => setImmediate(r));
    expect(order).to.deep.equal([1, 2]);
    while (gates.length) {
      gates.shift()!();
      await new Promise((r) => setImmediate(r));
    }
    expect(await Promise.all(all)).to.deep.equal(['task 1 failed', 2, 3, 4]);
    expect(order).to.deep.equal([1, 2, 3, 4]);
    expect(most).to.equal(2);
  });

  it('refuses a limit below one', () => {
    expect(() => new ConcurrencyLimit(0)).to.throw('ConcurrencyLimit needs max >= 1');
  });
});

describe('RepeatingPass (application/ledger/repeating-pass.ts)', () => {
  it('runs now, then after the delay each pass answers, until stopped; stop waits for the pass in flight', async () => {
    const clock = new FakeClock();
    const at: number[] = [];
    let release: (() => void) | undefined;
    const loop = new RepeatingPass(clock, async () => {
      at.push(clock.now());
      if (at.length === 3) await new Promise<void>((r) => (release = r));
      return at.length * 1000;
    });
    const t0 = clock.now();
    loop.start();
    await Promise.resolve();
    await Promise.resolve();
    expect(at).to.deep.equal([t0]);
    clock.advance(999);
    await Promise.resolve();
    expect(at).to.have.length(1);
    clock.advance(1);
    await new Promise((r) => setImmediate(r));
    expect(at).to.deep.equal([t0, t0 + 1000]);
    clock.advance(2000);
    await new Promise((r) => setImmediate(r));
    expect(at).to.deep.equal([t0, t0 + 1000, t0 + 3000]);
    // the third pass is in flight: stop waits for it and schedules no fourth
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await new Promise((r) => setImmediate(r));
    expect(stopped).to.equal(false);
    release!();
    await stopping;
    expect(clock.pendingTimers).to.equal(0);
    clock.advance(60_000);
    expect(at).to.have.length(3);
  });
});

describe('namespacesRead (application/ai/namespaces-read.ts)', () => {
  it('the namespaces of successful calls only, valid names only, also from arguments cut short', () => {
    const calls = [
      { name: 'get_resource', arguments: '{"namespace":"shop","name":"web"}', ok: true },
      { name: 'get_resource', arguments: '{"namespace":"secret-ns"}', ok: false },
      { name: 'list_resources', arguments: '{"kind":"Pod"}', ok: true },
      { name: 'list_resources', arguments: '{"namespace":"Bad_NS"}', ok: true },
      { name: 'describe_resource', arguments: '{"namespace":"payments","name":"x' + 'y'.repeat(600), ok: true },
      { name: 'get_resource', arguments: '{"namespace":"shop"}', ok: true },
    ];
    expect(namespacesRead(calls)).to.deep.equal(['shop', 'payments']);
  });

  it('keeps at most 50', () => {
    const calls = Array.from({ length: 80 }, (_, i) => ({ name: 'get_resource', arguments: JSON.stringify({ namespace: `ns-${i}` }), ok: true }));
    expect(namespacesRead(calls)).to.have.length(50);
  });
});

describe('echo and issueLines: caller text inside messages (domain/uploads/display.ts, domain/validation/zod-issues.ts)', () => {
  it('echoes short values as sent and cuts long ones, saying how long they were', () => {
    expect(echo('web')).to.equal('web');
    expect(echo('x'.repeat(200))).to.equal('x'.repeat(200));
    expect(echo('x'.repeat(5000))).to.equal(`${'x'.repeat(200)}...(5000 characters)`);
  });

  it('one line per zod issue, path first, (root) for the value itself', () => {
    const schema = z.object({ a: z.object({ b: z.number() }), c: z.string() });
    const nested = schema.safeParse({ a: { b: 'no' }, c: 1 });
    expect(nested.success).to.equal(false);
    const lines = issueLines(nested.error!);
    expect(lines).to.have.length(2);
    expect(lines[0]).to.match(/^a\.b: /);
    expect(lines[1]).to.match(/^c: /);
    expect(issueLines(z.string().safeParse(3).error!)[0]).to.match(/^\(root\): /);
  });
});
