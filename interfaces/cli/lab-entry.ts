import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** What `svc eval` passes to the harness (lab/evaluation/eval-main.ts's EvalOptions). */
export interface EvalRequest {
  /** Scenario names; all when empty. */
  scenarios: string[];
  /** Keep scenarios carrying any of these tags. */
  tags: string[];
  limit?: number;
  repeat: number;
  replay: boolean;
  record: boolean;
  /** With record: keep a transcript even when its case failed (marked failed). */
  force?: boolean;
  /** Also run the built-in baselines over the same scenarios and print them beside the model. */
  baselines?: boolean;
  /** Judge each diagnosis with this model of the configured provider (temperature 0, bounded), instead of the patterns. */
  judge?: string;
  reportJson?: string;
  reportMd?: string;
  minPass?: number;
  /** The scenarios folder (default: the one shipped with svc). */
  dir?: string;
}

/**
 * What the CLI uses of lab/ (the sandbox and the evaluation harness), through
 * lab/lab-main.ts, which declares that it `satisfies` this. The product never
 * imports lab/ (.dependency-cruiser.js, rule "product-imports-no-lab"): the
 * `svc sandbox` and `svc eval` commands load it at run time with loadLab().
 */
export interface LabEntry {
  listScenarios(dir?: string): string[];
  /** `clusters` above 1: that many sandbox clusters behind one kubeconfig, a context each (`svc sandbox --clusters N`). */
  serveSandbox(name: string, kubeconfig: string, stopped: Promise<void>, print: (line: string) => void, dir?: string, clusters?: number): Promise<void>;
  /** `--try`: the sandbox, a model replaying the scenario's transcript and svc on them, until `stopped`. */
  trySandbox(name: string, kubeconfig: string | undefined, stopped: Promise<void>, print: (line: string) => void, dir?: string): Promise<void>;
  runEvaluation(
    o: EvalRequest,
    env: NodeJS.ProcessEnv,
    print: (line: string) => void,
  ): Promise<{ report: { scorecard: { overall: { passAt1: number } } }; passed: boolean }>;
  /** The harness's "nothing was run" error (bad options or scenarios). */
  EvalUsageError: abstract new (message: string) => Error;
}

/** Where lab/lab-main.js sits beside this file once compiled (dist/interfaces/cli/ -> dist/lab/). */
export const LAB_MAIN = path.join(__dirname, '..', '..', 'lab', 'lab-main.js');

/**
 * lab/ loaded at run time: the specifier is computed, so neither tsc nor the
 * layer check sees a product-to-lab import, and a build without lab/ still
 * runs every other command (these two then say what is missing).
 */
export async function loadLab(): Promise<LabEntry> {
  try {
    return (await import(pathToFileURL(LAB_MAIN).href)) as LabEntry;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' || (e as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND')
      throw new Error(`svc sandbox and svc eval need lab/, which this build does not carry (${LAB_MAIN} is missing): build from the full source tree`, {
        cause: e,
      });
    throw e;
  }
}
