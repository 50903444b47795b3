import { scenarioSchema } from '../../domain/evaluation/scenario.js';
import type { LoadedScenario } from '../../lab/evaluation/scenario-loader.js';
import type { ScenarioCluster } from '../../lab/sandbox/scenario-cluster.js';

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
