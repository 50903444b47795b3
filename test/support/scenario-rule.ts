import { defaultScenariosDir, loadScenario } from '../../lab/evaluation/scenario-loader.js';
import { behaviourHolds } from '../../lab/sandbox/behaviour-conditions.js';
import { KubeCluster, type Obj } from '../../lab/sandbox/kube/kube-cluster.js';
import { findObject } from '../../lab/sandbox/scenario-rules.js';

/**
 * A scenario's cluster objects, stored as fixtures (nothing simulated), and
 * its first health rule judged on them: a test changes the objects as a fix
 * would and asks whether the rule holds.
 */
export interface RuleBench {
  cluster: KubeCluster;
  /** The stored object of a kind and name. */
  live(kind: string, name: string): Obj;
  /** Stores a new object (a fix that creates one). */
  add(o: Obj): void;
  /** Deletes the stored object of a kind and name. */
  remove(kind: string, name: string): void;
  /** Whether every condition of the rule holds now. */
  holds(): boolean;
}

export function ruleBench(scenario: string): RuleBench {
  const loaded = loadScenario(defaultScenariosDir(), scenario);
  const rule = loaded.scenario.cluster.rules[0];
  const cluster = new KubeCluster();
  for (const o of loaded.objects) cluster.put(structuredClone(o) as Obj);
  const find = (kind: string, name: string) => [...cluster.objects].find(([, o]) => o.kind === kind && o.metadata.name === name);
  return {
    cluster,
    live: (kind, name) => find(kind, name)![1],
    add: (o) => cluster.put(structuredClone(o)),
    remove: (kind, name) => cluster.objects.delete(find(kind, name)![0]),
    holds: () => rule.healthyWhen.every((cond) => behaviourHolds(cluster, cond, findObject(cluster, cond.object ?? rule.workload!), rule.container)),
  };
}
