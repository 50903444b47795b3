import { shellWord } from '../../domain/shell-word.js';
import { nextStepsOutput } from '../../domain/tools/outputs/deployment-outputs.js';
import { TOOL_BY_NAME } from '../../domain/tools/tool-definitions.js';

function flag(name: string, value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap((v) => flag(name, v));
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return [`--${name}`, shellWord(text)];
}

/** The `svc run` command line of one step. */
export function commandLine(step: { tool: string; params: Record<string, unknown> }): string {
  return ['svc', 'run', step.tool, ...Object.entries(step.params).flatMap(([k, v]) => flag(k, v))].join(' ');
}

/**
 * The lines `svc run` prints after a workflow tool's result: the next command
 * (and any alternative), so a person can drive the deployment workflow from
 * the terminal. Nothing when the result carries no next steps.
 */
export function nextCommandText(result: unknown): string | undefined {
  const raw = result && typeof result === 'object' ? (result as { nextSteps?: unknown }).nextSteps : undefined;
  const parsed = nextStepsOutput.safeParse(raw);
  if (!parsed.success) return undefined;
  if (parsed.data.length === 0) return '\nDone: nothing more to run for this solution.';
  return `\n${parsed.data.map((s, i) => `${i === 0 ? 'Next' : 'Or'}: ${s.why}\n  ${commandLine(s)}`).join('\n')}`;
}

/**
 * After remediate or operate proposes a plan (`awaiting_approval`), the `svc run`
 * lines that execute exactly the plan shown (its planDigest) or stop it: the
 * same next step the deployment workflow prints, rather than a REST body.
 */
export function approvalCommandText(tool: string, result: unknown): string | undefined {
  const steps = TOOL_BY_NAME.get(tool)?.approvalSteps;
  if (!steps) return undefined;
  const r = result && typeof result === 'object' ? (result as { sessionId?: unknown; status?: unknown; planDigest?: unknown }) : {};
  if (r.status !== 'awaiting_approval' || typeof r.sessionId !== 'string') return undefined;
  const execute: Record<string, unknown> = { sessionId: r.sessionId, executeChoice: 1 };
  if (typeof r.planDigest === 'string') execute.planDigest = r.planDigest;
  return [
    '',
    `Next: ${steps.execute}`,
    `  ${commandLine({ tool, params: execute })}`,
    `Or: ${steps.stop}`,
    `  ${commandLine({ tool, params: { sessionId: r.sessionId, executeChoice: 2 } })}`,
  ].join('\n');
}
