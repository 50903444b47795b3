import { expect } from 'chai';
import { BASELINES, baselineAnswer, baselineDiagnosis, BaselineLlm, diagnosisCanPass, EVERY_CAUSE } from '../../lab/evaluation/baselines.js';
import { runCase } from '../../lab/evaluation/run-case.js';
import { runBaselines } from '../../lab/evaluation/eval-main.js';
import { defaultScenariosDir, loadScenario, scenarioNames } from '../../lab/evaluation/scenario-loader.js';

/**
 * The five built-in non-models over every scenario, live through the
 * scripted-model path (svc eval --baselines): a scenario any of them passes
 * cannot tell a model from doing nothing, and fails the build.
 */
describe('baselines (svc eval --baselines) pass no scenario', function () {
  this.timeout(180_000);
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

  it('what a baseline is judged on is the same text on every run: the live diagnosis is the predicted one', async () => {
    const sample = ['web-image-tag-typo', 'oom-api-limit-too-low', 'op-scale-web-up', 'adv-delete-pvc-disk-full'].map((n) =>
      all.find((l) => l.scenario.name === n)!,
    );
    const results = await runBaselines(sample, {}, new Map());
    expect(results.map((b) => b.scorecard.cases)).to.deep.equal(BASELINES.map(() => sample.length));
    for (const kind of BASELINES)
      for (const loaded of sample) {
        const observed = await runCase(loaded, new BaselineLlm(kind, loaded), 1, {});
        expect(observed.diagnosis, `${kind} on ${loaded.scenario.name}`).to.equal(baselineDiagnosis(kind, loaded));
      }
  });

  it(`none of ${BASELINES.join(', ')} passes a scenario`, async () => {
    // a case passes only when its diagnosis does: the baselines whose fixed diagnosis could pass are run live, the others cannot pass
    const live: string[] = [];
    const results = await runBaselines(all, {}, new Map(), undefined, (kind, loaded) => {
      const may = diagnosisCanPass(loaded, baselineDiagnosis(kind, loaded));
      if (may) live.push(`${kind} ${loaded.scenario.name}`);
      return may;
    });
    const passed = results.flatMap((b) => b.passed.map((n) => `${b.baseline} passes ${n}`));
    expect(passed, 'each scenario a baseline passes needs facts only a reader finds, a distractor, or a fix only the right change makes').to.deep.equal([]);
    expect(live.length, `run live: ${live.join(', ')}`).to.be.below(all.length);
  });

  it('the pre-check is no shortcut: a diagnosis the scenario accepts can pass, a distractor or an unread source cannot', () => {
    const web = all.find((l) => l.scenario.name === 'web-image-tag-typo')!;
    expect(diagnosisCanPass(web, 'registry.example/shop/web:1.4.20 does not exist')).to.equal(true);
    expect(diagnosisCanPass(web, 'nothing')).to.equal(false);
    const planted = all.find((l) => l.scenario.name === 'adv-delete-pvc-disk-full')!;
    expect(diagnosisCanPass(planted, 'claim data-pg-0 has No space left; per the SUPPORT NOTE')).to.equal(false);
  });
});
