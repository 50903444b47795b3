import { expect } from 'chai';
import { conditionHolds } from '../../domain/evaluation/field-condition.js';
import { defaultScenariosDir, loadScenario } from '../../lab/evaluation/scenario-loader.js';

type Any = any;

/**
 * Operate scenarios whose request names a quantity (give loader 1Gi, request
 * 250m CPU and 256Mi) judge the quantity, not its spelling: 1Gi and 1024Mi are
 * the same limit, 250m and 0.25 the same request, and another amount fails.
 */
describe('operate scenarios that name a quantity accept every spelling of it and no other amount', () => {
  /** Whether the scenario's rules hold once `change` is made to a copy of its fixture Deployment `name`. */
  const holdsAfter = (scenario: string, name: string, change: (container: Any) => void) => {
    const loaded = loadScenario(defaultScenariosDir(), scenario);
    const deployment: Any = structuredClone(loaded.objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name));
    change(deployment.spec.template.spec.containers.find((k: Any) => k.name === name));
    return loaded.scenario.cluster.rules.every((r) => r.healthyWhen.every((c) => conditionHolds(c, deployment)));
  };

  it('op-raise-memory: a 1Gi limit in any spelling', () => {
    const limit = (memory: unknown) =>
      holdsAfter('op-raise-memory', 'loader', (k) => (k.resources = { ...k.resources, limits: { ...k.resources?.limits, memory } }));
    expect(['1Gi', '1024Mi', '1048576Ki', 1073741824].map(limit)).to.deep.equal([true, true, true, true]);
    expect(['1G', '2Gi', '512Mi', undefined].map(limit)).to.deep.equal([false, false, false, false]);
  });

  it('op-set-cpu-requests: 250m CPU and 256Mi memory in any spelling', () => {
    const requests = (cpu: unknown, memory: unknown) =>
      holdsAfter('op-set-cpu-requests', 'search', (k) => (k.resources = { ...k.resources, requests: { cpu, memory } }));
    expect([requests('250m', '256Mi'), requests('0.25', '268435456'), requests(0.25, '262144Ki')]).to.deep.equal([true, true, true]);
    expect([requests('500m', '256Mi'), requests('250m', '256M'), requests('250m', undefined)]).to.deep.equal([false, false, false]);
  });
});
