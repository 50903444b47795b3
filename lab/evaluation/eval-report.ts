import type { CaseResult } from '../../domain/evaluation/case-result.js';
import type { Scorecard, ScoreLine } from '../../domain/evaluation/scorecard.js';

/** What a report says about itself: a replay scores svc's pipeline against recorded answers, never a model. */
export interface RunInfo {
  kind: 'replay' | 'live';
  model: string;
  startedAt: string;
  repeat: number;
  durationMs: number;
  /** A replay: each scenario's transcript and where it came from (hand-written, or recorded from a model on a date). */
  transcripts?: Record<string, string>;
  /** `--judge`: the model that judged the diagnoses, pinned with its parameters. */
  judge?: { provider: string; model: string; temperature: number; maxOutputTokens: number };
}

/** A baseline's run over the same scenarios: its scores and the scenarios it passed (each one a scenario that cannot tell a model from it). */
export interface BaselineResult {
  baseline: string;
  scorecard: ScoreLine;
  passed: string[];
}

export interface EvalReport {
  run: RunInfo;
  scorecard: Scorecard;
  /** One record per case and repeat. */
  cases: CaseResult[];
  baselines?: BaselineResult[];
}

const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
const HEAD = ['group', 'cases', 'pass@1', 'pass^k', 'diagnosis', 'fix', 'safety', 'cost', 'guard', 'calibration', 'calls', 'tokens', 'ms', 'usd'];
const row = (l: ScoreLine) => [
  l.group,
  String(l.cases),
  pct(l.passAt1),
  pct(l.passAllK),
  pct(l.diagnosis),
  pct(l.fix),
  pct(l.safety),
  pct(l.cost),
  pct(l.guard),
  pct(l.calibration),
  l.meanModelCalls.toFixed(1),
  l.meanTokens.toFixed(0),
  l.meanLatencyMs.toFixed(0),
  l.meanUsd === undefined ? '-' : l.meanUsd.toFixed(4),
];

export function title(run: RunInfo): string {
  return run.kind === 'replay'
    ? `Replay run (recorded answers: this scores svc's pipeline, sandbox and scorers, not a model; transcripts: ${sourceSummary(run)}), ${run.repeat} repeat(s)${judgeNote(run)}`
    : `Live run with model ${run.model}, ${run.repeat} repeat(s)${judgeNote(run)}`;
}

const judgeNote = (run: RunInfo) =>
  run.judge
    ? `; diagnoses judged by ${run.judge.provider} model ${run.judge.model} (temperature ${run.judge.temperature}, at most ${run.judge.maxOutputTokens} tokens)`
    : '';

/** How many transcripts came from where: `158 hand-written, 2 recorded from gpt-x on 2026-12-01`. */
function sourceSummary(run: RunInfo): string {
  const counts = new Map<string, number>();
  for (const s of Object.values(run.transcripts ?? {})) {
    const key = s.replace(/ on (\d{4}-\d{2}-\d{2})T\S*/, ' on $1');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([s, n]) => `${n} ${s}`).join(', ') || 'none';
}

/** The model's and the baselines' overall lines, for a table beside each other. */
const besideRows = (report: EvalReport) => [
  row({ ...report.scorecard.overall, group: report.run.kind === 'replay' ? 'replay' : report.run.model }),
  ...(report.baselines ?? []).map((b) => row({ ...b.scorecard, group: `baseline:${b.baseline}` })),
];

/** The baselines beside the model, and each scenario a baseline passed (flagged: it cannot tell that baseline from a model). */
export function baselineLines(report: EvalReport): string[] {
  if (!report.baselines) return [];
  const rows = [HEAD, ...besideRows(report)];
  const widths = HEAD.map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return [
    'Baselines (built-in non-models, run live through the scripted-model path) beside the model:',
    ...rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')),
    ...report.baselines.flatMap((b) => b.passed.map((n) => `FLAG ${n}: passed by the baseline ${b.baseline}`)),
  ];
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
    .filter((c) => !c.score.passed || !c.score.guard.passed || !c.score.calibration.passed)
    .map((c) => {
      const why = (['diagnosis', 'fix', 'safety', 'cost', 'guard', 'calibration'] as const).flatMap((k) => c.score[k].reasons.map((r) => `${k}: ${r}`));
      return `FAIL ${c.scenario} #${c.repeat}${whereText(c)}: ${why.join('; ')}`;
    });
}

/** For a case on several clusters: the clusters it ran on and where each write went (` on cluster-1, cluster-2; wrote patch Deployment shop/web in cluster-2`). */
export function whereText(c: Pick<CaseResult, 'clusters' | 'writes'>): string {
  if (!c.clusters?.length) return '';
  const writes = c.writes.map((w) => `${w.verb} ${w.kind} ${w.namespace ? `${w.namespace}/` : ''}${w.name} in ${w.cluster ?? '?'}`);
  return ` on ${c.clusters.join(', ')}; ${writes.length ? `wrote ${writes.join(', ')}` : 'wrote nothing'}`;
}

/** The scorecard and the failures as a Markdown page. */
export function markdownReport(report: EvalReport): string {
  const cells = (r: string[]) => `| ${r.join(' | ')} |`;
  const table = [cells(HEAD), cells(HEAD.map(() => '---')), cells(row(report.scorecard.overall)), ...report.scorecard.byTag.map((l) => cells(row(l)))];
  const failures = failureLines(report.cases);
  const beside = report.baselines
    ? [
        '',
        '## Baselines beside the model',
        '',
        'Built-in non-models run live through the scripted-model path over the same scenarios. A scenario a baseline passes is flagged: it cannot tell that baseline from a model.',
        '',
        cells(HEAD),
        cells(HEAD.map(() => '---')),
        ...besideRows(report).map(cells),
        ...report.baselines.flatMap((b) => b.passed.map((n) => `- FLAG ${n}: passed by the baseline ${b.baseline}`)),
      ]
    : [];
  const sources = report.run.transcripts ? ['', '## Transcripts replayed', '', ...Object.entries(report.run.transcripts).map(([n, s]) => `- ${n}: ${s}`)] : [];
  return [
    `# svc eval: ${title(report.run)}`,
    '',
    `Started ${report.run.startedAt}, ${(report.run.durationMs / 1000).toFixed(1)} s. pass@1: share of runs that passed the model's four scores (diagnosis, fix, safety, cost); pass^k: share of scenarios whose every repeat passed; guard and calibration are svc's own, reported apart.`,
    '',
    ...table,
    '',
    failures.length ? '## Failures' : 'Every run passed.',
    ...(failures.length ? ['', ...failures.map((f) => `- ${f}`)] : []),
    ...beside,
    ...sources,
    '',
  ].join('\n');
}
