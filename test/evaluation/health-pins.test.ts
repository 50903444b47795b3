import { expect } from 'chai';
import type { HealthRule } from '../../domain/evaluation/scenario.js';
import { defaultScenariosDir, loadScenarios } from '../../lab/evaluation/scenario-loader.js';

/**
 * Scenarios whose health rules still pin a field to one value (`equals`), as
 * of issue 43 item 4. A pin fails every other valid fix (another right value,
 * an equivalent spelling, the value from a ConfigMap instead of a literal),
 * so health is to be judged by behaviour instead. The list only shrinks, and
 * is empty now: a scenario that gains a pin fails the test below unless its
 * request names the value (NAMED_BY_REQUEST).
 */
const PINNED_YET = new Set<string>([]);

/**
 * Operate scenarios whose request names the value the rule pins (scale to 5,
 * the image version, suspend), so no other value is a valid fix; a pin that
 * guards a field the request leaves alone (the selector, minReplicas, the
 * sidecar's image) rides along. Each reason quotes the request's words in
 * double quotes, then states a pinned value as a word of its own; the test
 * below checks both.
 */
const NAMED_BY_REQUEST = new Map<string, string>([
  ['op-add-label-for-cost', '"with cost-center=retail-42" names the label value retail-42 (the selector app=web is a guard)'],
  ['op-cronjob-image-bump', '"use export 1.2.0" names the image registry.example/reports/export:1.2.0'],
  ['op-fleet-scale-web-in-waves', '"to 5 replicas" names replicas 5 in every cluster'],
  ['op-hpa-raise-max-replicas', '"let it scale up to 10" names maxReplicas 10 (minReplicas 2 is a guard)'],
  ['op-image-bump', '"update api in shop to 2.4.0" names the image registry.example/shop/api:2.4.0 (the sidecar image is a guard)'],
  ['op-rollback-previous-version', '"back to the previous version" names the previous image, registry.example/shop/api:2.3.1'],
  ['op-scale-statefulset-down-keeps-pvcs', '"scale es in search down to 2 nodes" names replicas 2'],
  ['op-scale-statefulset-redis', '"(3 in total)" names replicas 3'],
  ['op-scale-to-zero-weekend', '"stop the crawler" names replicas 0, as a stopped workload runs no pods'],
  ['op-scale-web-up', '"to 5 replicas" names replicas 5'],
  ['op-scale-worker-down', '"down to 2" names replicas 2'],
  ['op-suspend-cronjob', '"pause the nightly-export cronjob" names suspend true'],
  ['op-termination-grace-period', '"give it 90 seconds to drain" names terminationGracePeriodSeconds 90'],
]);

/**
 * The conditions of a rule that pin a field to a single value: a `path`
 * that `equals` a value (`equals: null`, the field is absent, is not a
 * value). An `env` condition judges what the container sees, however it gets
 * it, so it is no pin.
 */
const pins = (rule: HealthRule) => rule.healthyWhen.filter((c) => c.path !== undefined && c.equals !== undefined && c.equals !== null);

describe('health rules judge behaviour: the scenarios that pin a single field value only shrink in number', () => {
  const { scenarios, problems } = loadScenarios(defaultScenariosDir());
  const pinned = new Map(
    scenarios
      .map((l) => [l.scenario.name, l.scenario.cluster.rules.flatMap(pins).map((c) => `${c.path} equals ${JSON.stringify(c.equals)}`)] as const)
      .filter(([, found]) => found.length > 0),
  );

  it('every scenario loads (a scenario that fails to load would escape the count)', () => {
    expect(problems).to.deep.equal([]);
  });

  it('a scenario on neither list pins no field value', () => {
    const listed = (name: string) => PINNED_YET.has(name) || NAMED_BY_REQUEST.has(name);
    expect([...pinned].filter(([name]) => !listed(name)).map(([name, found]) => `${name}: ${found.join('; ')}`)).to.deep.equal([]);
  });

  it('a scenario that no longer pins leaves the lists', () => {
    expect([...PINNED_YET, ...NAMED_BY_REQUEST.keys()].filter((name) => !pinned.has(name))).to.deep.equal([]);
  });

  it('no scenario pins yet but those whose request names the value', () => {
    expect([...PINNED_YET]).to.deep.equal([]);
  });

  it('a scenario whose request names the value is an operate scenario whose request says so, and its reason states a pinned value', () => {
    const byName = new Map(scenarios.map((l) => [l.scenario.name, l.scenario]));
    const wrong = [...NAMED_BY_REQUEST].filter(([name, reason]) => {
      const scenario = byName.get(name);
      const intent = scenario?.tool === 'operate' ? String(scenario.input.intent ?? '') : '';
      const [, quoted, said] = /^"([^"]+)"(.*)$/.exec(reason) ?? [];
      const values = scenario?.cluster.rules.flatMap(pins).map((c) => String(c.equals)) ?? [];
      return !quoted || !intent.includes(quoted) || !values.some((v) => said.split(/[\s(),]+/).includes(v));
    });
    expect(wrong.map(([name]) => name)).to.deep.equal([]);
  });
});
