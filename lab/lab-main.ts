/**
 * The lab's one entry: what the CLI's `svc sandbox` and `svc eval` load at run
 * time (interfaces/cli/lab-entry.ts). lab/ may use the composition root and
 * anything in the product; nothing in the product imports lab/.
 *
 * Only what `svc sandbox --list` and serving a scenario need loads with this
 * file; the harness and `--try` (both build the whole composition root) load
 * when they are called, so listing scenarios answers about as fast as node starts.
 */
import type { LabEntry } from '../interfaces/cli/lab-entry.js';
import { EvalUsageError } from './evaluation/eval-usage-error.js';
import { listScenarios, serveSandbox } from './sandbox/sandbox-main.js';

const runEvaluation: LabEntry['runEvaluation'] = async (o, env, print) => (await import('./evaluation/eval-main.js')).runEvaluation(o, env, print);

const trySandbox: LabEntry['trySandbox'] = async (name, kubeconfig, stopped, print, dir) =>
  (await import('./sandbox/sandbox-try.js')).trySandbox(name, kubeconfig, stopped, print, dir);

export { EvalUsageError, listScenarios, runEvaluation, serveSandbox, trySandbox };

/** The CLI's contract, checked here where both sides are visible. */
export const labEntry = { EvalUsageError, listScenarios, runEvaluation, serveSandbox, trySandbox } satisfies LabEntry;
