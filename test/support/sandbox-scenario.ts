import { expect } from 'chai';
import { scenarioSchema } from '../../domain/evaluation/scenario.js';
import { defaultScenariosDir, loadScenario, type LoadedScenario } from '../../lab/evaluation/scenario-loader.js';
import { ScenarioCluster } from '../../lab/sandbox/scenario-cluster.js';

type Any = any;

/** A remediate scenario built in a test, not read from scenarios/: its objects, registry and rules, in one namespace. */
export function syntheticScenario(opts: {
  name: string;
  namespace: string;
  tag: string;
  images: Record<string, number>;
  objects: Any[];
  rules?: Any[];
}): LoadedScenario {
  const parsed = scenarioSchema.parse({
    name: opts.name,
    title: opts.name.replace(/-/g, ' '),
    tags: ['easy', opts.tag],
    tool: 'remediate',
    input: { issue: `something in ${opts.namespace} is wrong` },
    cluster: { namespaces: [opts.namespace], objects: ['cluster.yaml'], images: opts.images, rules: opts.rules ?? [] },
    expect: { healthy: true, budget: { modelCalls: 5, tokens: 1000 } },
  });
  return { dir: '/nonexistent', scenario: parsed, objects: opts.objects, logs: [] };
}

/** Every stored object of a kind in the sandbox. */
export const objectsOf = (s: ScenarioCluster, kind: string): Any[] => [...s.server.objects.values()].filter((o) => o.kind === kind);

/** The stored object of a kind and name (the first, in any namespace). */
export const liveObject = (s: ScenarioCluster, kind: string, name: string): Any => objectsOf(s, kind).find((o) => o.metadata.name === name);

/** A fix tried on a shipped scenario: the scenario, the fix in words, whether it must leave the cluster healthy, and the change itself. */
export type ScenarioFix = [scenario: string, fix: string, healthy: boolean, apply: (s: ScenarioCluster) => void];

/**
 * One test per fix: the scenario's sandbox is broken before it, and healthy
 * after it exactly when the fix is valid, so a second valid fix passes and a
 * wrong one fails. Each sandbox is closed by the test that started it.
 */
export function itJudgesFixes(fixes: ScenarioFix[]): void {
  for (const [name, fix, healthy, apply] of fixes)
    it(`${name} with ${fix}: ${healthy ? 'healthy' : 'not healthy'}`, async () => {
      const sandbox = await ScenarioCluster.start(loadScenario(defaultScenariosDir(), name));
      try {
        expect(sandbox.health().healthy, 'broken before the fix').to.equal(false);
        apply(sandbox);
        const report = sandbox.health();
        expect(report.healthy, report.problems.join('; ')).to.equal(healthy);
      } finally {
        await sandbox.close();
      }
    });
}

/** A `kubectl rollout restart` of the Deployment: the generic fix that changes nothing the scenario is about. */
export const restartDeployment = (name: string) => (s: ScenarioCluster) => {
  const d = liveObject(s, 'Deployment', name);
  d.spec.template.metadata.annotations = { 'kubectl.kubernetes.io/restartedAt': '2026-12-03T08:00:00Z' };
  d.metadata.generation += 1;
  s.server.reconcile();
};
