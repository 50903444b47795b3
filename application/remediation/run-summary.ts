import type { RunBudget } from '../ai/run-budget.js';
import type { ToolLoopResult } from '../ai/tool-loop.js';
import type { RunSummary } from './remediation-state.js';

/** Functions listed per run in an answer; the count says how many there were in all. */
const MAX_LISTED_CALLS = 40;

/** A loop's record as the session keeps it; `limit` in words when the run stopped early. */
export function runSummary(loop: ToolLoopResult, budget: RunBudget, stoppedBy: RunSummary['stoppedBy'] = loop.stoppedBy, problem?: string): RunSummary {
  let limit: string | undefined;
  if (stoppedBy === 'model-calls' || stoppedBy === 'tokens' || stoppedBy === 'deadline') limit = budget.describe(stoppedBy);
  else if (stoppedBy === 'provider-error') limit = `the AI provider failed: ${loop.error ?? problem ?? 'no answer'}`;
  else if (problem) limit = problem;
  const usage = budget.usage;
  return {
    modelCalls: budget.calls,
    functionsCalled: loop.functionCalls
      .slice(0, MAX_LISTED_CALLS)
      .map((c) => ({ name: c.name, arguments: c.arguments, ok: c.ok, ...(c.error ? { error: c.error.slice(0, 300) } : {}) })),
    functionCallCount: loop.functionCalls.length,
    stoppedBy,
    ...(limit ? { limit } : {}),
    tokens: { input: usage.inputTokens, output: usage.outputTokens },
  };
}
