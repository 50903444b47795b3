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
): Promise<void> {
  if (!scenarioNames(dir).includes(name)) throw new Error(`no scenario named ${name} in ${dir} (svc sandbox --list shows them)`);
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
