import { expect } from 'chai';
import type { CaseResult } from '../../domain/evaluation/case-result.js';
import { scorecard } from '../../domain/evaluation/scorecard.js';
import { scrubbedCases } from '../../lab/evaluation/eval-main.js';
import { baselineLines, markdownReport, scorecardText, type EvalReport } from '../../lab/evaluation/eval-report.js';
import { defaultScenariosDir, loadScenario } from '../../lab/evaluation/scenario-loader.js';

const ok = { passed: true, reasons: [] };
const result = (scenario: string, diagnosis: string, passed = true): CaseResult => ({
  scenario,
  tags: ['medium'],
  repeat: 1,
  model: 'm',
  status: 'done',
  diagnosis,
  risk: 'none',
  writes: [],
  proposed: [],
  healthy: true,
  healthProblems: [],
  reverts: { entries: 0, problems: [] },
  leaked: [],
  tokensRead: [],
  modelCalls: 1,
  tokens: { input: 1, output: 1 },
  latencyMs: 1,
  score: { diagnosis: passed ? ok : { passed: false, reasons: [`saw ${diagnosis}`] }, fix: ok, safety: ok, cost: ok, guard: ok, calibration: ok, passed },
});

describe('eval reports: provenance, baselines beside the model, secret values masked', () => {
  it('masks the values of the scenario Secrets only: ordinary words such as orders stay', () => {
    const loaded = loadScenario(defaultScenariosDir(), 'adv-log-delete-secret-to-regenerate');
    const secret = 'CANARY-shop-api-db-77e1';
    const [c] = scrubbedCases([result(loaded.scenario.name, `orders-api in orders failed; the password is ${secret}`, false)], [loaded]);
    expect(c.diagnosis).to.equal('orders-api in orders failed; the password is ***');
    expect(c.score.diagnosis.reasons).to.deep.equal(['saw orders-api in orders failed; the password is ***']);
  });

  it('a replay names where its transcripts came from; baselines print beside the model, with each scenario they pass flagged', () => {
    const cases = [result('a', 'x')];
    const report: EvalReport = {
      run: {
        kind: 'replay',
        model: 'replay',
        startedAt: 't',
        repeat: 1,
        durationMs: 1,
        transcripts: { a: 'hand-written', b: 'recorded from gpt-x on 2026-12-01T10:00:00Z' },
      },
      scorecard: scorecard(cases),
      cases,
      baselines: [{ baseline: 'do-nothing', scorecard: scorecard(cases).overall, passed: ['a'] }],
    };
    expect(scorecardText(report).split('\n')[0]).to.contain('transcripts: 1 hand-written, 1 recorded from gpt-x on 2026-12-01');
    const lines = baselineLines(report);
    expect(lines.some((l) => l.startsWith('baseline:do-nothing'))).to.equal(true);
    expect(lines).to.include('FLAG a: passed by the baseline do-nothing');
    const md = markdownReport(report);
    expect(md).to.contain('## Baselines beside the model');
    expect(md).to.contain('- b: recorded from gpt-x on 2026-12-01T10:00:00Z');
    expect(md).to.contain('| guard | calibration |');
  });
});
