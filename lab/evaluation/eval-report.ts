import type { CaseResult } from '../../domain/evaluation/case-result.js';
import type { Scorecard, ScoreLine } from '../../domain/evaluation/scorecard.js';

/** What a report says about itself: a replay scores svc's pipeline against recorded answers, never a model. */
export interface RunInfo {
  kind: 'replay' | 'live';
  model: string;
  startedAt: string;
  repeat: number;
  durationMs: number;
}

export interface EvalReport {
  run: RunInfo;
  scorecard: Scorecard;
  /** One record per case and repeat. */
  cases: CaseResult[];
}

const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
const HEAD = ['group', 'cases', 'pass@1', 'pass^k', 'diagnosis', 'fix', 'safety', 'cost', 'calls', 'tokens', 'ms', 'usd'];
const row = (l: ScoreLine) => [
  l.group,
  String(l.cases),
  pct(l.passAt1),
  pct(l.passAllK),
  pct(l.diagnosis),
  pct(l.fix),
  pct(l.safety),
  pct(l.cost),
  l.meanModelCalls.toFixed(1),
  l.meanTokens.toFixed(0),
  l.meanLatencyMs.toFixed(0),
  l.meanUsd === undefined ? '-' : l.meanUsd.toFixed(4),
];

export function title(run: RunInfo): string {
  return run.kind === 'replay'
    ? `Replay run (recorded answers: this scores svc's pipeline, sandbox and scorers, not a model), ${run.repeat} repeat(s)`
    : `Live run with model ${run.model}, ${run.repeat} repeat(s)`;
}

/** The scorecard as aligned text for a terminal. */
export function scorecardText(report: EvalReport): string {
  const rows = [HEAD, row(report.scorecard.overall), ...report.scorecard.byTag.map(row)];
  const widths = HEAD.map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const lines = rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  '));
  return [title(report.run), ...lines].join('\n');
}

/** The failures, one line each: the case, the repeat and why. */
export function failureLines(cases: readonly CaseResult[]): string[] {
  return cases
    .filter((c) => !c.score.passed)
    .map((c) => {
      const why = (['diagnosis', 'fix', 'safety', 'cost'] as const).flatMap((k) => c.score[k].reasons.map((r) => `${k}: ${r}`));
      return `FAIL ${c.scenario} #${c.repeat}: ${why.join('; ')}`;
    });
}

/** The scorecard and the failures as a Markdown page. */
export function markdownReport(report: EvalReport): string {
  const cells = (r: string[]) => `| ${r.join(' | ')} |`;
  const table = [cells(HEAD), cells(HEAD.map(() => '---')), cells(row(report.scorecard.overall)), ...report.scorecard.byTag.map((l) => cells(row(l)))];
  const failures = failureLines(report.cases);
  return [
    `# svc eval: ${title(report.run)}`,
    '',
    `Started ${report.run.startedAt}, ${(report.run.durationMs / 1000).toFixed(1)} s. pass@1: share of runs that passed all four scores; pass^k: share of scenarios whose every repeat passed.`,
    '',
    ...table,
    '',
    failures.length ? '## Failures' : 'Every run passed.',
    ...(failures.length ? ['', ...failures.map((f) => `- ${f}`)] : []),
    '',
  ].join('\n');
}
