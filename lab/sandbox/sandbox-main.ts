import { defaultScenariosDir, scenarioNames, scenarioTags } from '../evaluation/scenario-index.js';

/**
 * `svc sandbox --list`: one line per scenario, its name then its tags. Only
 * the tags are read (`svc eval` checks scenarios in full); a scenario whose
 * tags are written in a form the quick reader does not know is loaded and
 * checked in full, as before.
 */
export function listScenarios(dir = defaultScenariosDir()): string[] {
  const names = scenarioNames(dir);
  const width = Math.max(0, ...names.map((n) => n.length));
  return names.map((n) => `${n.padEnd(width)}  ${(scenarioTags(dir, n) ?? fullLoader().loadScenario(dir, n).scenario.tags).join(' ')}`);
}

/** The scenario parser and schema (and, below, the stand-in cluster) load only when a scenario is served or needs them. */
const fullLoader = () => require('../evaluation/scenario-loader.js') as typeof import('../evaluation/scenario-loader.js');

/**
 * `svc sandbox --scenario NAME --kubeconfig FILE`: serves the scenario's
 * cluster on 127.0.0.1 until `stopped` resolves, after writing the kubeconfig
 * and printing one `ready` line.
 */
export async function serveSandbox(
  name: string,
  kubeconfig: string,
  stopped: Promise<void>,
  print: (line: string) => void,
  dir = defaultScenariosDir(),
  clusters = 1,
): Promise<void> {
  if (!scenarioNames(dir).includes(name)) throw new Error(`no scenario named ${name} in ${dir} (svc sandbox --list shows them)`);
  if (clusters > 1) return serveFleet(name, kubeconfig, stopped, print, dir, clusters);
  const { ScenarioCluster } = await import('./scenario-cluster.js');
  const sandbox = await ScenarioCluster.start(fullLoader().loadScenario(dir, name), { wallClock: true });
  try {
    sandbox.writeKubeconfig(kubeconfig);
    print(`ready ${sandbox.server.url} scenario ${name} kubeconfig ${kubeconfig}`);
    await stopped;
  } finally {
    await sandbox.close();
  }
}

/** Most clusters `svc sandbox --clusters` serves. */
export const MAX_SANDBOX_CLUSTERS = 16;

/**
 * `svc sandbox --scenario NAME --clusters N --kubeconfig FILE`: N sandbox
 * clusters of the scenario (each holding the objects `cluster.placement`
 * puts in it), behind one kubeconfig with a context each
 * (`sandbox-NAME-1` .. `-N`), until `stopped` resolves. Its `ready` line
 * names the contexts, for SVC_CLUSTERS.
 */
async function serveFleet(name: string, kubeconfig: string, stopped: Promise<void>, print: (line: string) => void, dir: string, n: number): Promise<void> {
  if (!Number.isInteger(n) || n < 1 || n > MAX_SANDBOX_CLUSTERS) throw new Error(`--clusters must be 1 to ${MAX_SANDBOX_CLUSTERS}`);
  const { ScenarioCluster, writeSandboxesKubeconfig } = await import('./scenario-cluster.js');
  const loaded = fullLoader().loadScenario(dir, name);
  const sandboxes: Awaited<ReturnType<typeof ScenarioCluster.start>>[] = [];
  try {
    for (let member = 1; member <= n; member++) sandboxes.push(await ScenarioCluster.start(loaded, { wallClock: true, member }));
    const contexts = sandboxes.map((_, i) => `sandbox-${name}-${i + 1}`);
    writeSandboxesKubeconfig(
      kubeconfig,
      sandboxes.map((sandbox, i) => ({ sandbox, context: contexts[i] })),
    );
    print(`ready ${n} clusters scenario ${name} kubeconfig ${kubeconfig} contexts ${contexts.join(',')}`);
    await stopped;
  } finally {
    await Promise.all(sandboxes.map((s) => s.close()));
  }
}
