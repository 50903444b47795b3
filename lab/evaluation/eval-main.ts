import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import type { CaseResult } from '../../domain/evaluation/case-result.js';
import { scoreCase } from '../../domain/evaluation/score-case.js';
import { scorecard } from '../../domain/evaluation/scorecard.js';
import type { Transcript } from '../../domain/evaluation/transcript.js';
import type { EvalRequest } from '../../interfaces/cli/lab-entry.js';
import { loadConfig } from '../../infrastructure/config/config.js';
import { parseModelPrices } from '../../infrastructure/config/eval-config.js';
import { createLlmProvider } from '../../infrastructure/llm/create-llm-provider.js';
import { baselineLines, failureLines, markdownReport, scorecardText, type BaselineResult, type EvalReport } from './eval-report.js';
import { secretValues } from './leak-check.js';
import { EvalUsageError } from './eval-usage-error.js';
import { runCase } from './run-case.js';
import { defaultScenariosDir, loadScenario, scenarioNames, type LoadedScenario } from './scenario-loader.js';
import { BASELINES, BaselineLlm, type Baseline } from './baselines.js';
import { RecordingLlm, ReplayLlm, type ObservedLlm } from './transcript-llm.js';
import { JUDGE_PARAMS, judgeDiagnosis, judgedDiagnosis, type JudgeSetting } from './judge.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';

/** What `svc eval` asks for: the CLI's contract (interfaces/cli/lab-entry.ts) is the one definition. */
export type EvalOptions = EvalRequest;

/** A problem with the command line or the scenarios: nothing was run. */
export { EvalUsageError };

/** The scenarios the options select, loaded (a broken one stops the run, naming its problems). */
export function selectScenarios(o: Pick<EvalOptions, 'scenarios' | 'tags' | 'limit' | 'dir'>): LoadedScenario[] {
  const dir = o.dir ?? defaultScenariosDir();
  const all = scenarioNames(dir);
  const unknown = o.scenarios.filter((n) => !all.includes(n));
  if (unknown.length) throw new EvalUsageError(`no scenario named ${unknown.join(', ')} in ${dir} (svc sandbox --list shows them)`);
  const loaded = (o.scenarios.length ? o.scenarios : all).map((n) => loadScenario(dir, n));
  const tagged = o.tags.length ? loaded.filter((l) => l.scenario.tags.some((t) => o.tags.includes(t))) : loaded;
  return o.limit === undefined ? tagged : tagged.slice(0, o.limit);
}

/**
 * `svc eval`: every selected scenario, `repeat` times, through svc's use
 * cases with the configured model (or the transcripts with `replay`),
 * scored; prints the scorecard and the failures, writes the reports, and
 * answers whether the pass rate reached `minPass`.
 */
export async function runEvaluation(o: EvalOptions, env: NodeJS.ProcessEnv, print: (line: string) => void): Promise<{ report: EvalReport; passed: boolean }> {
  if (o.replay && o.record) throw new EvalUsageError('--record records a live model: it cannot go with --replay');
  if (o.force && !o.record) throw new EvalUsageError('--force goes with --record (keep the transcript of a failed case)');
  const prices = parseModelPrices(env);
  const selected = selectScenarios(o);
  if (selected.length === 0) throw new EvalUsageError('no scenario matches');
  const missing = o.replay ? selected.filter((l) => !l.transcript).map((l) => l.scenario.name) : [];
  if (missing.length) throw new EvalUsageError(`no transcript.yaml to replay for ${missing.join(', ')}`);
  const live = o.replay ? undefined : createLlmProvider(loadConfig(env).llm);
  if (live && !live.status().configured)
    throw new EvalUsageError(`svc eval needs a model: ${live.status().hint ?? 'set SVC_LLM_PROVIDER and its settings'} (or run --replay)`);
  let judge: { llm: LlmProvider; setting: JudgeSetting } | undefined;
  if (o.judge !== undefined) {
    if (!/^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,199}$/.test(o.judge)) throw new EvalUsageError('--judge takes a model name (letters, digits and . _ : / @ -)');
    const llm = live ?? createLlmProvider(loadConfig(env).llm);
    const status = llm.status();
    if (!status.configured) throw new EvalUsageError(`--judge needs a model provider: ${status.hint ?? 'set SVC_LLM_PROVIDER and its settings'}`);
    judge = { llm, setting: { provider: status.provider, model: o.judge, ...JUDGE_PARAMS } };
  }
  const startedAt = new Date().toISOString();
  const started = Date.now();
  const cases: CaseResult[] = [];
  for (const loaded of selected)
    for (let repeat = 1; repeat <= o.repeat; repeat++) {
      const llm = live ? new RecordingLlm(live) : new ReplayLlm(loaded.transcript!.replies);
      const result = await scoredCase(loaded, llm, repeat, env, prices, judge);
      cases.push(result);
      print(`${result.score.passed ? 'pass' : 'FAIL'} ${loaded.scenario.name}${o.repeat > 1 ? ` #${repeat}` : ''} (${result.latencyMs} ms)`);
      if (o.record && repeat === 1 && llm instanceof RecordingLlm) {
        if (result.score.passed || o.force) writeTranscript(loaded, llm, result.score.passed);
        else print(`  not recorded: the case failed (--force keeps it)`);
      }
    }
  const model = live?.status().model ?? 'replay';
  const baselines = o.baselines ? await runBaselines(selected, env, prices, print) : undefined;
  const report: EvalReport = {
    run: {
      kind: o.replay ? 'replay' : 'live',
      model,
      startedAt,
      repeat: o.repeat,
      durationMs: Date.now() - started,
      ...(o.replay ? { transcripts: transcriptSources(selected) } : {}),
      ...(judge ? { judge: judge.setting } : {}),
    },
    scorecard: scorecard(cases),
    cases: scrubbedCases(cases, selected),
    ...(baselines ? { baselines } : {}),
  };
  print(scorecardText(report));
  if (baselines) for (const line of baselineLines(report)) print(line);
  for (const f of failureLines(report.cases)) print(f);
  if (o.reportJson) writeFileSync(o.reportJson, JSON.stringify(report, null, 2));
  if (o.reportMd) writeFileSync(o.reportMd, markdownReport(report));
  return { report, passed: o.minPass === undefined || report.scorecard.overall.passAt1 >= o.minPass };
}

async function scoredCase(
  loaded: LoadedScenario,
  llm: ObservedLlm,
  repeat: number,
  env: NodeJS.ProcessEnv,
  prices: ReturnType<typeof parseModelPrices>,
  judge?: { llm: LlmProvider; setting: JudgeSetting },
): Promise<CaseResult> {
  const observed = await runCase(loaded, llm, repeat, env);
  const score = scoreCase(loaded.scenario, observed, prices);
  if (!judge) return { ...observed, score };
  // the judge decides the diagnosis only; the other scores stay deterministic
  const outcome = await judgeDiagnosis(judge.llm, judge.setting, loaded.scenario, observed.diagnosis);
  const judged = judgedDiagnosis(loaded.scenario, observed, score.diagnosis, outcome);
  const diagnosis = judged.verdict;
  return {
    ...observed,
    judge: judged.judge,
    score: { ...score, diagnosis, passed: diagnosis.passed && score.fix.passed && score.safety.passed && score.cost.passed },
  };
}

/** Each baseline once over the scenarios, live through the scripted-model path; the scenarios it passes are flagged. */
export async function runBaselines(
  selected: readonly LoadedScenario[],
  env: NodeJS.ProcessEnv,
  prices: ReturnType<typeof parseModelPrices>,
  print: (line: string) => void = () => undefined,
  only?: (kind: Baseline, loaded: LoadedScenario) => boolean,
): Promise<BaselineResult[]> {
  const out: BaselineResult[] = [];
  for (const kind of BASELINES) {
    const cases: CaseResult[] = [];
    for (const loaded of selected) if (!only || only(kind, loaded)) cases.push(await scoredCase(loaded, new BaselineLlm(kind, loaded), 1, env, prices));
    const passed = cases.filter((c) => c.score.passed).map((c) => c.scenario);
    for (const name of passed) print(`FLAG ${name}: the baseline ${kind} passes it`);
    out.push({ baseline: kind, scorecard: scorecard(cases).overall, passed });
  }
  return out;
}

/**
 * The cases with the values of their scenario's Secrets (and neverSent strings) masked in every text a report
 * prints: those values only, so ordinary words of the cluster (`orders`) stay readable.
 */
export function scrubbedCases(cases: readonly CaseResult[], selected: readonly LoadedScenario[]): CaseResult[] {
  const values = new Map(selected.map((l) => [l.scenario.name, secretValues(l).map((v) => v.value)]));
  return cases.map((c) => {
    const secrets = (values.get(c.scenario) ?? []).sort((a, b) => b.length - a.length);
    if (!secrets.length) return c;
    const mask = (t: string) => secrets.reduce((out, v) => out.split(v).join('***'), t);
    const verdict = <V extends { reasons: string[] }>(v: V): V => ({ ...v, reasons: v.reasons.map(mask) });
    const sc = c.score;
    return {
      ...c,
      diagnosis: mask(c.diagnosis),
      healthProblems: c.healthProblems.map(mask),
      ...(c.error ? { error: mask(c.error) } : {}),
      score: {
        ...sc,
        diagnosis: verdict(sc.diagnosis),
        fix: verdict(sc.fix),
        safety: verdict(sc.safety),
        cost: verdict(sc.cost),
        guard: verdict(sc.guard),
        calibration: verdict(sc.calibration),
      },
    };
  });
}

/** Where each replayed transcript came from: hand-written, or recorded from which model and when. */
function transcriptSources(selected: readonly LoadedScenario[]): Record<string, string> {
  return Object.fromEntries(
    selected.map((l) => {
      const t = l.transcript!;
      return [
        l.scenario.name,
        t.source === 'recorded' ? `recorded from ${t.model ?? 'an unnamed model'}${t.recordedAt ? ` on ${t.recordedAt}` : ''}` : 'hand-written',
      ];
    }),
  );
}

/** `--record`: the live model's answers as the scenario's transcript.yaml, with the model, the date and whether its case passed. */
function writeTranscript(loaded: LoadedScenario, llm: RecordingLlm, passed: boolean): void {
  const transcript: Transcript = {
    source: 'recorded',
    model: llm.status().model ?? 'unknown',
    recordedAt: new Date().toISOString(),
    ...(passed ? {} : { failed: true }),
    replies: llm.replies,
  };
  writeFileSync(path.join(loaded.dir, 'transcript.yaml'), stringify(transcript, { lineWidth: 0 }));
}
