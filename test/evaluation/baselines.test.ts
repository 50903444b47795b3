import { expect } from 'chai';
import { BASELINES, baselineAnswer, BaselineLlm, EVERY_CAUSE } from '../../lab/evaluation/baselines.js';
import { runBaselines } from '../../lab/evaluation/eval-main.js';
import { defaultScenariosDir, loadScenario, scenarioNames } from '../../lab/evaluation/scenario-loader.js';

/**
 * The five built-in non-models over every scenario, live through the
 * scripted-model path (svc eval --baselines): a scenario any of them passes
 * cannot tell a model from doing nothing, and fails the build.
 */
describe('baselines (svc eval --baselines) pass no scenario', function () {
  this.timeout(600_000);
  const all = scenarioNames(defaultScenariosDir()).map((n) => loadScenario(defaultScenariosDir(), n));

  it('each baseline answers the same whatever the cluster: nothing, a restart, more memory, every cause, the issue', () => {
    const web = all.find((l) => l.scenario.name === 'web-image-tag-typo')!;
    expect(baselineAnswer('do-nothing', web).actions).to.deep.equal([]);
    expect(baselineAnswer('every-cause', web).text).to.contain(EVERY_CAUSE);
    expect(baselineAnswer('parrot-issue', web).text).to.equal(web.scenario.input.issue);
    expect(baselineAnswer('always-restart', web).actions[0]).to.include({ type: 'rolloutRestart' });
    const memory = baselineAnswer('more-memory', web).actions[0] as { patch: unknown };
    expect(JSON.stringify(memory.patch)).to.contain('"memory":"512Mi"');
    expect(new BaselineLlm('do-nothing', web).status().model).to.equal('baseline:do-nothing');
  });

  it(`none of ${BASELINES.join(', ')} passes a scenario`, async () => {
    const results = await runBaselines(all, {}, new Map());
    const passed = results.flatMap((b) => b.passed.map((n) => `${b.baseline} passes ${n}`));
    expect(passed, 'each scenario a baseline passes needs facts only a reader finds, a distractor, or a fix only the right change makes').to.deep.equal([]);
    // and they ran: each baseline was judged on every scenario
    for (const b of results) expect(b.scorecard.cases, b.baseline).to.equal(all.length);
  });
});
