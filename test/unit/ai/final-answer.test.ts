import { expect } from 'chai';
import { z } from 'zod';
import { askFinalAnswer, FINDINGS_CHARS, loopRecord, type LoopRecord } from '../../../application/ai/final-answer.js';
import { RunBudget } from '../../../application/ai/run-budget.js';
import type { Template } from '../../../application/ai/template.js';
import type { ToolLoopResult } from '../../../application/ai/tool-loop.js';
import { FakeLlm } from '../../fakes/fake-llm.js';

const loop = (text: string): ToolLoopResult =>
  ({
    text,
    stoppedBy: 'answer',
    calls: 2,
    functionCalls: [{ name: 'getPods', arguments: '{"namespace":"shop"}', ok: true }],
    usage: { inputTokens: 10, outputTokens: 5 },
    model: 'fake',
    messages: [
      { role: 'system', content: 'investigate' },
      { role: 'user', content: 'web is down' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'getPods', arguments: '{"namespace":"shop"}' }] },
      { role: 'tool', toolCallId: 'c1', content: 'web-1 CrashLoopBackOff' },
      { role: 'assistant', content: text },
    ],
  }) as unknown as ToolLoopResult;

const template: Template<{ issue: string } & LoopRecord> = {
  id: 'test/final',
  instructions: 'The calls were made; they are given as data.',
  data: (d) => ({ issue: d.issue, investigation: d.investigation, findings: d.findings }),
  ask: 'Answer with the analysis.',
};

describe('application/ai/final-answer: the structured answer after a tool loop, in a fresh conversation', () => {
  it("keeps the loop's calls and results as a transcript, and the model's closing text cut to FINDINGS_CHARS", () => {
    const record = loopRecord(loop(`  ${'f'.repeat(FINDINGS_CHARS + 10)}  `));
    expect(record.investigation).to.contain('[call 1] getPods {"namespace":"shop"}\nweb-1 CrashLoopBackOff');
    expect(record.findings).to.have.length(FINDINGS_CHARS);
    expect(loopRecord(loop('   '))).to.not.have.property('findings');
  });

  it('asks with two messages, system and user, no tool message and no function offered, and answers the parsed object', async () => {
    const llm = new FakeLlm().push('{"rootCause":"the image does not exist"}');
    const answer = await askFinalAnswer(llm, {
      loop: loop('the image tag is wrong'),
      template,
      data: { issue: 'web is down' },
      schema: z.strictObject({ rootCause: z.string() }),
      name: 'analysis',
      example: { rootCause: 'e.g.' },
      what: 'the analysis',
      budget: new RunBudget({ maxCalls: 5, maxTokens: 100_000, timeoutMs: 5000 }),
    });
    expect(answer).to.deep.equal({ rootCause: 'the image does not exist' });
    const [call] = llm.calls;
    expect(call.messages.map((m) => m.role)).to.deep.equal(['system', 'user']);
    expect(call.options).to.not.have.property('tools');
    expect(call.messages[1].content).to.contain('web is down').and.contain('web-1 CrashLoopBackOff').and.contain('the image tag is wrong');
  });
});
