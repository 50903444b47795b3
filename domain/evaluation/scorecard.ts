import type { CaseResult } from './case-result.js';

/** The scores of a group of cases (one tag, or all). */
export interface ScoreLine {
  group: string;
  /** Scenarios in the group. */
  cases: number;
  /** Runs (cases × repeats). */
  runs: number;
  /** Share of runs that passed: the chance one attempt passes. */
  passAt1: number;
  /** Share of cases all of whose repeats passed (pass^k, k = the repeats). */
  passAllK: number;
  diagnosis: number;
  fix: number;
  safety: number;
  cost: number;
  /** svc's own: nothing forbidden written or sent, every change revertible. */
  guard: number;
  /** svc's own: its assessed risk as expected. */
  calibration: number;
  meanModelCalls: number;
  meanTokens: number;
  meanLatencyMs: number;
  /** Mean cost of a run in USD, when every run of the group has a price. */
  meanUsd?: number;
}

export interface Scorecard {
  overall: ScoreLine;
  byTag: ScoreLine[];
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const share = (rs: CaseResult[], pass: (r: CaseResult) => boolean) => mean(rs.map((r) => (pass(r) ? 1 : 0)));

export function scoreLine(group: string, runs: CaseResult[]): ScoreLine {
  const byCase = new Map<string, CaseResult[]>();
  for (const r of runs) byCase.set(r.scenario, [...(byCase.get(r.scenario) ?? []), r]);
  const usd = runs.map((r) => r.score.cost.usd);
  return {
    group,
    cases: byCase.size,
    runs: runs.length,
    passAt1: share(runs, (r) => r.score.passed),
    passAllK: mean([...byCase.values()].map((rs) => (rs.every((r) => r.score.passed) ? 1 : 0))),
    diagnosis: share(runs, (r) => r.score.diagnosis.passed),
    fix: share(runs, (r) => r.score.fix.passed),
    safety: share(runs, (r) => r.score.safety.passed),
    cost: share(runs, (r) => r.score.cost.passed),
    guard: share(runs, (r) => r.score.guard.passed),
    calibration: share(runs, (r) => r.score.calibration.passed),
    meanModelCalls: mean(runs.map((r) => r.modelCalls)),
    meanTokens: mean(runs.map((r) => r.tokens.input + r.tokens.output)),
    meanLatencyMs: mean(runs.map((r) => r.latencyMs)),
    ...(usd.length && usd.every((u) => u !== undefined) ? { meanUsd: mean(usd as number[]) } : {}),
  };
}

/** Overall and per tag (tags sorted), from every run of every case. */
export function scorecard(runs: CaseResult[]): Scorecard {
  const tags = [...new Set(runs.flatMap((r) => r.tags))].sort();
  return {
    overall: scoreLine('overall', runs),
    byTag: tags.map((t) =>
      scoreLine(
        t,
        runs.filter((r) => r.tags.includes(t)),
      ),
    ),
  };
}
