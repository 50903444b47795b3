import { expect } from 'chai';
import { STATIC_TOKEN_CALLER } from '../../domain/auth/caller.js';
import { ExecuteTool } from '../../application/execute-tool.js';
import { ExecutionError, NotFoundError, ValidationError } from '../../domain/errors.js';
import { TOOL_DEFINITIONS } from '../../domain/tools/tool-definitions.js';
import { ToolRegistry } from '../../domain/tools/tool-registry.js';
import { CapturingLogger } from '../support/capturing-logger.js';
import { FakeClock } from '../support/fake-clock.js';
import { RecordingTracer } from '../support/recording-tracer.js';

describe('ExecuteTool', () => {
  const registry = new ToolRegistry(TOOL_DEFINITIONS);
  const setup = (handlers: Record<string, (input: Record<string, unknown>) => Promise<unknown>>) => {
    const tracer = new RecordingTracer();
    const clock = new FakeClock();
    const map = new Map(Object.entries(handlers).map(([k, fn]) => [k, { execute: fn }]));
    return { tracer, clock, useCase: new ExecuteTool(registry, map, tracer, clock, new CapturingLogger()) };
  };

  it('runs the handler inside one execute_tool span carrying the whole input', async () => {
    const { tracer, clock, useCase } = setup({
      operate: async (input) => {
        clock.advance(42);
        return { echoed: input };
      },
    });
    const out = await useCase.execute({
      toolName: 'operate',
      params: { intent: 'scale web to 3', sessionId: 'opr_1' },
      requestId: 'r1',
      caller: STATIC_TOKEN_CALLER,
    });
    expect(out).to.deep.equal({ result: { echoed: { intent: 'scale web to 3', sessionId: 'opr_1' } }, tool: 'operate', executionTime: 42 });
    expect(tracer.spans).to.have.length(1);
    const span = tracer.spans[0];
    expect(span.name).to.equal('execute_tool operate');
    expect(JSON.parse(String(span.attributes['gen_ai.tool.input']))).to.deep.equal({ intent: 'scale web to 3', sessionId: 'opr_1' });
    expect(span.attributes).to.include({ 'svc.session.id': 'opr_1', 'svc.tool.success': true, 'svc.tool.duration_ms': 42 });
  });

  it('validates before running anything', async () => {
    let ran = false;
    const { tracer, useCase } = setup({ recommend: async () => (ran = true) });
    const err = await useCase.execute({ toolName: 'recommend', params: {}, requestId: 'r', caller: STATIC_TOKEN_CALLER }).catch((e) => e);
    expect(err).to.be.instanceOf(ValidationError);
    expect(ran).to.equal(false);
    expect(tracer.spans).to.have.length(0);
  });

  it('throws TOOL_NOT_FOUND for an unknown tool', async () => {
    const err = await setup({})
      .useCase.execute({ toolName: 'x', params: {}, requestId: 'r', caller: STATIC_TOKEN_CALLER })
      .catch((e) => e);
    expect(err).to.be.instanceOf(NotFoundError);
    expect(err.code).to.equal('TOOL_NOT_FOUND');
  });

  it('marks the span failed and says so honestly for a tool without a use case', async () => {
    const { tracer, useCase } = setup({});
    const err = await useCase
      .execute({ toolName: 'remediate', params: { issue: 'pod crashloops' }, requestId: 'r', caller: STATIC_TOKEN_CALLER })
      .catch((e) => e);
    expect(err).to.be.instanceOf(ExecutionError);
    expect(err.message).to.include('remediate').and.include('not available');
    expect(tracer.spans[0].attributes['svc.tool.success']).to.equal(false);
    expect(tracer.spans[0].error).to.equal(err);
  });
});
