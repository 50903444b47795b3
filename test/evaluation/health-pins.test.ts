import { expect } from 'chai';
import type { HealthRule } from '../../domain/evaluation/scenario.js';
import { defaultScenariosDir, loadScenarios } from '../../lab/evaluation/scenario-loader.js';

/**
 * Scenarios whose health rules still pin a field to one value (`equals`), as
 * of issue 43 item 4. A pin fails every other valid fix (another right value,
 * an equivalent spelling, the value from a ConfigMap instead of a literal),
 * so health is to be judged by behaviour instead. The list only shrinks: a
 * scenario that no longer pins leaves it (the test below fails until it
 * does), and a scenario not on it that gains a pin fails the test. An operate
 * scenario whose request names the value (scale to 5) may keep its pin.
 */
const PINNED_YET = new Set([
  'op-add-label-for-cost',
  'op-add-readiness-probe',
  'op-add-toleration-for-spot',
  'op-cronjob-image-bump',
  'op-env-from-configmap',
  'op-faster-rollout-maxsurge',
  'op-fleet-scale-web-in-waves',
  'op-hpa-raise-max-replicas',
  'op-image-bump',
  'op-rollback-previous-version',
  'op-scale-statefulset-down-keeps-pvcs',
  'op-scale-statefulset-redis',
  'op-scale-to-zero-weekend',
  'op-scale-web-up',
  'op-scale-worker-down',
  'op-spread-across-nodes',
  'op-suspend-cronjob',
  'op-termination-grace-period',
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

  it('a scenario not on the list pins no field value', () => {
    expect([...pinned].filter(([name]) => !PINNED_YET.has(name)).map(([name, found]) => `${name}: ${found.join('; ')}`)).to.deep.equal([]);
  });

  it('a scenario that no longer pins leaves the list', () => {
    expect([...PINNED_YET].filter((name) => !pinned.has(name))).to.deep.equal([]);
  });
});
