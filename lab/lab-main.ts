/**
 * The lab's one entry: what the CLI's `svc sandbox` and `svc eval` load at run
 * time (interfaces/cli/lab-entry.ts). lab/ may use the composition root and
 * anything in the product; nothing in the product imports lab/.
 */
import type { LabEntry } from '../interfaces/cli/lab-entry.js';
import { EvalUsageError, runEvaluation } from './evaluation/eval-main.js';
import { listScenarios, serveSandbox } from './sandbox/sandbox-main.js';
import { trySandbox } from './sandbox/sandbox-try.js';

export { EvalUsageError, listScenarios, runEvaluation, serveSandbox, trySandbox };

/** The CLI's contract, checked here where both sides are visible. */
export const labEntry = { EvalUsageError, listScenarios, runEvaluation, serveSandbox, trySandbox } satisfies LabEntry;
