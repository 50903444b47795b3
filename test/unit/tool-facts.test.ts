import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ToolHandler, TypedToolHandlers } from '../../application/tool-handler.js';
import { SESSION_TOOLS } from '../../application/sessions/session-summary.js';
import { scenarioSchema } from '../../domain/evaluation/scenario.js';
import { ASYNC_TOOLS, honoursAsync } from '../../domain/runs/run.js';
import { SESSION_KINDS } from '../../domain/sessions/session.js';
import { PLAN_APPROVAL_STEPS } from '../../domain/tools/tool-definition.js';
import { EVALUATED_TOOLS, TOOL_DEFINITIONS, TOOL_INPUTS, type ToolName } from '../../domain/tools/tool-definitions.js';
import { approvalCommandText } from '../../interfaces/cli/next-command.js';

const named = (pick: (d: (typeof TOOL_DEFINITIONS)[number]) => unknown) =>
  TOOL_DEFINITIONS.filter(pick)
    .map((d) => d.name)
    .sort();

describe('tool facts live on the tool definition, and every list derives from them', () => {
  it('long-running: the tools that honour Prefer: respond-async (and svc run follows live) are those marked longRunning', () => {
    expect([...ASYNC_TOOLS].sort()).to.deep.equal(named((d) => d.longRunning));
    expect([...ASYNC_TOOLS].sort()).to.deep.equal(['deployManifests', 'generateManifests', 'operate', 'recommend', 'remediate']);
    for (const d of TOOL_DEFINITIONS) expect(honoursAsync(d.name, {}), d.name).to.equal(d.longRunning === true);
  });

  it('session kind: each kind has the one tool marked with it, and the API enum of session tools says the same', () => {
    for (const kind of Object.keys(SESSION_KINDS) as (keyof typeof SESSION_KINDS)[])
      expect(SESSION_TOOLS[kind], kind).to.equal(TOOL_DEFINITIONS.find((d) => d.sessions?.includes(kind))!.name);
    const swagger = JSON.parse(readFileSync(path.join(__dirname, '..', '..', '..', 'interfaces', 'http', 'generated', 'swagger.json'), 'utf8'));
    expect([...swagger.components.schemas.SessionTool.enum].sort()).to.deep.equal([...new Set(Object.values(SESSION_TOOLS))].sort());
  });

  it("next-step wording: svc run prints the definition's approval steps, and nothing for a tool without them", () => {
    const result = { status: 'awaiting_approval', sessionId: 'rem_0123', planDigest: `sha256:${'a'.repeat(64)}` };
    for (const d of TOOL_DEFINITIONS) {
      const text = approvalCommandText(d.name, result);
      if (!d.approvalSteps) {
        expect(text, d.name).to.equal(undefined);
        continue;
      }
      expect(text).to.include(`Next: ${d.approvalSteps.execute}`).and.include(`Or: ${d.approvalSteps.stop}`);
      expect(text).to.include(`svc run ${d.name} --sessionId rem_0123 --executeChoice 1 --planDigest sha256:`);
    }
    expect(named((d) => d.approvalSteps)).to.deep.equal(['operate', 'remediate']);
    expect(TOOL_DEFINITIONS.find((d) => d.name === 'remediate')!.approvalSteps).to.equal(PLAN_APPROVAL_STEPS);
  });

  it('evaluation eligibility: a scenario may name only a tool marked evaluated', () => {
    expect([...EVALUATED_TOOLS].sort()).to.deep.equal(named((d) => d.evaluated));
    const toolIssue = (tool: string) =>
      scenarioSchema.safeParse({ tool }).error!.issues.some((i) => i.path[0] === 'tool' && /expected one of/i.test(i.message));
    for (const d of TOOL_DEFINITIONS) expect(toolIssue(d.name), d.name).to.equal(!d.evaluated);
  });

  it('the handler table is complete by type: leaving a tool out does not compile', () => {
    const any: ToolHandler<never> = { execute: async () => ({}) };
    const full = Object.fromEntries(Object.keys(TOOL_INPUTS).map((n) => [n, any])) as TypedToolHandlers;
    const { remediate: _left, ...missing } = full;
    // @ts-expect-error remediate has no handler: the table is not a TypedToolHandlers (this line stops compiling if it ever were)
    const table: TypedToolHandlers = missing;
    expect(Object.keys(table)).to.have.length(Object.keys(TOOL_INPUTS).length - 1);
    const names: ToolName[] = TOOL_DEFINITIONS.map((d) => d.name as ToolName);
    expect(names.sort()).to.deep.equal(Object.keys(TOOL_INPUTS).sort());
  });
});
