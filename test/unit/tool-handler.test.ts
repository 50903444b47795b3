import { expect } from 'chai';
import { handlerTable, type ToolContext, type ToolHandler, type TypedToolHandlers } from '../../application/tool-handler.js';
import { TOOL_INPUTS, type ToolName } from '../../domain/tools/tool-definitions.js';

/** A handler that answers with its own name, so a lookup shows which one it found. */
const answering = (name: string): ToolHandler => ({ execute: async () => name });
const typed = (): TypedToolHandlers =>
  Object.fromEntries((Object.keys(TOOL_INPUTS) as ToolName[]).map((n) => [n, answering(n)])) as unknown as TypedToolHandlers;
const context: ToolContext = { requestId: 'r-1', caller: { id: 'static:admin', username: 'admin', groups: [], roles: ['admin'], kind: 'static' } as never };
const run = (h: ToolHandler<never> | undefined) => (h as ToolHandler | undefined)?.execute({}, context);

describe('tool handlers: the lookup table ExecuteTool reads', () => {
  it("holds every tool's handler under the tool's name", async () => {
    const table = handlerTable(typed());
    expect([...table.keys()].sort()).to.deep.equal(Object.keys(TOOL_INPUTS).sort());
    for (const name of Object.keys(TOOL_INPUTS)) expect(await run(table.get(name))).to.equal(name);
  });

  it('adds the extra handlers (the lab tools) beside the typed ones', async () => {
    const table = handlerTable(typed(), { labOnly: answering('lab') });
    expect(table.size).to.equal(Object.keys(TOOL_INPUTS).length + 1);
    expect(await run(table.get('labOnly'))).to.equal('lab');
  });

  it('an extra handler given for a tool name replaces the typed one (the extras come last)', async () => {
    const name = Object.keys(TOOL_INPUTS)[0]!;
    expect(await run(handlerTable(typed(), { [name]: answering('override') }).get(name))).to.equal('override');
  });

  it('an entry left undefined is not in the table: the tool answers as unknown rather than calling nothing', () => {
    const handlers = typed() as unknown as Record<string, ToolHandler | undefined>;
    const name = Object.keys(TOOL_INPUTS)[0]!;
    handlers[name] = undefined;
    const table = handlerTable(handlers as unknown as TypedToolHandlers, { maybe: undefined as unknown as ToolHandler });
    expect(table.has(name)).to.equal(false);
    expect(table.has('maybe')).to.equal(false);
  });
});
