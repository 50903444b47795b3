import { expect } from 'chai';
import { DependencyError, NotConfiguredError } from '../../domain/errors.js';
import { RunBudget } from '../../application/ai/run-budget.js';
import { LOOP_LIMITS, runToolLoop, type ModelFunction } from '../../application/ai/tool-loop.js';
import { FakeLlm } from '../fakes/fake-llm.js';
import { RecordingTracer } from '../support/recording-tracer.js';
import { rejection } from '../support/rejection.js';

const budget = (over: Partial<ConstructorParameters<typeof RunBudget>[0]> = {}) =>
  new RunBudget({ maxCalls: 25, maxTokens: 1_000_000, timeoutMs: 5000, ...over });
const user = [{ role: 'user' as const, content: 'why is web down?' }];

function probe(run: (args: Record<string, unknown>) => Promise<unknown> = async () => 'fine'): ModelFunction & { seen: Record<string, unknown>[] } {
  const seen: Record<string, unknown>[] = [];
  return { seen, spec: { name: 'probe', description: 'probe', parameters: { type: 'object' } }, run: async (a) => (seen.push(a), run(a)) };
}

describe('runToolLoop (application/ai)', () => {
  const tracer = new RecordingTracer();

  it('runs the calls, pairs each result with its call id, and stops on an answer without calls', async () => {
    const llm = new FakeLlm([{ toolCalls: [{ name: 'probe', arguments: { ns: 'x' } }] }, 'found it']);
    const fn = probe();
    const r = await runToolLoop(llm, tracer, { messages: user, functions: [fn], budget: budget() });
    expect(r).to.deep.include({ text: 'found it', stoppedBy: 'final-answer', calls: 2 });
    expect(fn.seen).to.deep.equal([{ ns: 'x' }]);
    const second = llm.calls[1].messages;
    expect(second.at(-1)).to.deep.equal({ role: 'tool', toolCallId: (second.at(-2) as { toolCalls: { id: string }[] }).toolCalls[0].id, content: 'fine' });
    expect(llm.calls[0].options.tools).to.deep.equal([fn.spec]);
    expect(r.usage.inputTokens).to.equal(200);
  });

  it('stops at the model-call cap, leaving the reserved calls unused', async () => {
    const llm = new FakeLlm([], { toolCalls: [{ name: 'probe', arguments: {} }] });
    const b = budget({ maxCalls: 5 });
    const r = await runToolLoop(llm, tracer, { messages: user, functions: [probe()], budget: b, reserveCalls: 1 });
    expect(r.stoppedBy).to.equal('model-calls');
    expect(llm.calls).to.have.length(4);
    expect(b.remainingCalls).to.equal(1);
  });

  it('stops when the token budget is spent', async () => {
    const llm = new FakeLlm([], { toolCalls: [{ name: 'probe', arguments: {} }], usage: { inputTokens: 400, outputTokens: 100 } });
    const r = await runToolLoop(llm, tracer, { messages: user, functions: [probe()], budget: budget({ maxTokens: 1200 }) });
    expect(r.stoppedBy).to.equal('tokens');
    expect(llm.calls).to.have.length(3);
  });

  it('ends at the deadline when the provider hangs, or a function hangs, with what was found so far', async () => {
    const hanging = new FakeLlm([{ toolCalls: [{ name: 'probe', arguments: {} }] }, 'hang']);
    const started = Date.now();
    const r = await runToolLoop(hanging, tracer, { messages: user, functions: [probe()], budget: budget({ timeoutMs: 300 }) });
    expect(r.stoppedBy).to.equal('deadline');
    expect(r.functionCalls).to.have.length(1);
    const slowFn = probe(() => new Promise(() => {}));
    const r2 = await runToolLoop(new FakeLlm([{ toolCalls: [{ name: 'probe', arguments: {} }] }]), tracer, {
      messages: user,
      functions: [slowFn],
      budget: budget({ timeoutMs: 300 }),
    });
    expect(r2.stoppedBy).to.equal('deadline');
    expect(Date.now() - started).to.be.below(2000);
  });

  it('answers unknown functions, malformed, non-object and oversized arguments and extra calls with errors, never running them', async () => {
    const calls = [
      { name: 'apply_manifest', arguments: '{}' },
      { name: 'probe', arguments: '{not json' },
      { name: 'probe', arguments: '[1]' },
      { name: 'probe', arguments: JSON.stringify({ x: 'y'.repeat(LOOP_LIMITS.argumentChars) }) },
      ...Array.from({ length: LOOP_LIMITS.callsPerAnswer }, () => ({ name: 'probe', arguments: '{}' })),
    ];
    const fn = probe();
    const llm = new FakeLlm([{ toolCalls: calls }, 'done']);
    const r = await runToolLoop(llm, tracer, { messages: user, functions: [fn], budget: budget() });
    const errors = llm.calls[1].messages
      .filter((m) => m.role === 'tool')
      .map((m) => (m.content.startsWith('{') ? (JSON.parse(m.content) as { error: string }).error : m.content));
    expect(errors[0]).to.match(/^unknown function "apply_manifest"; available: probe$/);
    expect(errors[1]).to.match(/^invalid arguments JSON/);
    expect(errors[2]).to.equal('invalid arguments JSON: arguments must be a JSON object');
    expect(errors[3]).to.match(/^arguments too long/);
    expect(errors.slice(LOOP_LIMITS.callsPerAnswer)).to.satisfy((e: string[]) => e.every((x) => /too many function calls/.test(x)));
    expect(fn.seen).to.have.length(LOOP_LIMITS.callsPerAnswer - 4);
    expect(r.functionCalls.filter((c) => !c.ok)).to.have.length(8);
  });

  it('cuts an oversized result, tells the model, and keeps the whole context bounded over 25 calls', async () => {
    const llm = new FakeLlm([], {
      toolCalls: [
        { name: 'probe', arguments: {} },
        { name: 'probe', arguments: {} },
      ],
    });
    const r = await runToolLoop(llm, tracer, { messages: user, functions: [probe(async () => 'z'.repeat(100_000))], budget: budget({ maxCalls: 25 }) });
    expect(r.stoppedBy).to.equal('model-calls');
    const first = llm.calls[1].messages.find((m) => m.role === 'tool')!;
    expect(Buffer.byteLength(first.content)).to.be.at.most(LOOP_LIMITS.resultBytes);
    expect(first.content).to.match(/\[svc: result cut from 100000 to \d+ bytes/);
    const sizes = llm.calls.map((c) => JSON.stringify(c.messages).length);
    expect(Math.max(...sizes)).to.be.below(LOOP_LIMITS.contextBytes + 40_000);
    expect(sizes[24]).to.be.below(sizes[12] * 1.5);
  });

  it('keeps the findings when the provider fails mid-loop, throws when it fails on the first call or is not configured', async () => {
    const llm = new FakeLlm([{ toolCalls: [{ name: 'probe', arguments: {} }] }, new DependencyError('llm', 'AI provider failed (500)')]);
    const r = await runToolLoop(llm, tracer, { messages: user, functions: [probe()], budget: budget() });
    expect(r).to.deep.include({ stoppedBy: 'provider-error', error: 'AI provider failed (500)' });
    expect(r.functionCalls).to.have.length(1);
    const first = await rejection(runToolLoop(new FakeLlm([new DependencyError('llm', 'down')]), tracer, { messages: user, functions: [], budget: budget() }));
    expect(first).to.be.instanceOf(DependencyError);
    const none = await rejection(
      runToolLoop(new FakeLlm([new NotConfiguredError('The AI provider', 'set OPENAI_API_KEY')]), tracer, { messages: user, functions: [], budget: budget() }),
    );
    expect(none.message).to.contain('OPENAI_API_KEY');
  });

  it('is one tool_loop span inside the tool run, with the usage summed', async () => {
    const t = new RecordingTracer();
    const llm = new FakeLlm(['done']);
    await t.inSpan('execute_tool remediate', {}, () => runToolLoop(llm, t, { messages: user, functions: [], budget: budget() }));
    const loop = t.spans.find((s) => s.name === 'tool_loop fake-model')!;
    expect(loop.parent?.name).to.equal('execute_tool remediate');
    expect(loop.attributes).to.deep.include({
      'gen_ai.operation.name': 'tool_loop',
      'gen_ai.usage.input_tokens': 100,
      'svc.tool_loop.stopped_by': 'final-answer',
    });
  });
});
