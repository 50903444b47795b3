import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import type { CaseResult } from '../../domain/evaluation/case-result.js';
import { scoreCase } from '../../domain/evaluation/score-case.js';
import { scorecard } from '../../domain/evaluation/scorecard.js';
import type { Transcript } from '../../domain/evaluation/transcript.js';
import { loadConfig } from '../../infrastructure/config/config.js';
import { parseModelPrices } from '../../infrastructure/config/eval-config.js';
import { createLlmProvider } from '../../infrastructure/llm/create-llm-provider.js';
import type { EvalRequest } from '../../interfaces/cli/lab-entry.js';
import { failureLines, markdownReport, scorecardText, type EvalReport } from './eval-report.js';
import { runCase } from './run-case.js';
import { defaultScenariosDir, loadScenario, scenarioNames, type LoadedScenario } from './scenario-loader.js';
import { RecordingLlm, ReplayLlm } from './transcript-llm.js';

/** `svc eval`'s options: the CLI's contract with lab/ (interfaces/cli/lab-entry.ts) defines them. */
export type EvalOptions = EvalRequest;

/** A problem with the command line or the scenarios: nothing was run. */
export class EvalUsageError extends Error {}

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
  const prices = parseModelPrices(env);
  const selected = selectScenarios(o);
  if (selected.length === 0) throw new EvalUsageError('no scenario matches');
  const missing = o.replay ? selected.filter((l) => !l.transcript).map((l) => l.scenario.name) : [];
  if (missing.length) throw new EvalUsageError(`no transcript.yaml to replay for ${missing.join(', ')}`);
  const live = o.replay ? undefined : createLlmProvider(loadConfig(env).llm);
  if (live && !live.status().configured)
    throw new EvalUsageError(`svc eval needs a model: ${live.status().hint ?? 'set SVC_LLM_PROVIDER and its settings'} (or run --replay)`);
  const startedAt = new Date().toISOString();
  const started = Date.now();
  const cases: CaseResult[] = [];
  for (const loaded of selected)
    for (let repeat = 1; repeat <= o.repeat; repeat++) {
      const llm = live ? new RecordingLlm(live) : new ReplayLlm(loaded.transcript!.replies);
      const observed = await runCase(loaded, llm, repeat, env);
      const result = { ...observed, score: scoreCase(loaded.scenario, observed, prices) };
      cases.push(result);
      print(`${result.score.passed ? 'pass' : 'FAIL'} ${loaded.scenario.name}${o.repeat > 1 ? ` #${repeat}` : ''} (${observed.latencyMs} ms)`);
      if (o.record && repeat === 1 && llm instanceof RecordingLlm) writeTranscript(loaded, llm);
    }
  const model = live?.status().model ?? 'replay';
  const report: EvalReport = {
    run: { kind: o.replay ? 'replay' : 'live', model, startedAt, repeat: o.repeat, durationMs: Date.now() - started },
    scorecard: scorecard(cases),
    cases,
  };
  print(scorecardText(report));
  for (const f of failureLines(cases)) print(f);
  if (o.reportJson) writeFileSync(o.reportJson, JSON.stringify(report, null, 2));
  if (o.reportMd) writeFileSync(o.reportMd, markdownReport(report));
  return { report, passed: o.minPass === undefined || report.scorecard.overall.passAt1 >= o.minPass };
}

/** `--record`: the live model's answers as the scenario's transcript.yaml. */
function writeTranscript(loaded: LoadedScenario, llm: RecordingLlm): void {
  const transcript: Transcript = { source: 'recorded', model: llm.status().model ?? 'unknown', recordedAt: new Date().toISOString(), replies: llm.replies };
  writeFileSync(path.join(loaded.dir, 'transcript.yaml'), stringify(transcript, { lineWidth: 0 }));
}
