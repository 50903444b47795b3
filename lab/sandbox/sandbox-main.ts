import { defaultScenariosDir, loadScenario, scenarioNames } from '../evaluation/scenario-loader.js';
import { ScenarioCluster } from './scenario-cluster.js';

/** `svc sandbox --list`: one line per scenario, its name then its tags. */
export function listScenarios(dir = defaultScenariosDir()): string[] {
  const names = scenarioNames(dir);
  const width = Math.max(0, ...names.map((n) => n.length));
  return names.map((n) => `${n.padEnd(width)}  ${loadScenario(dir, n).scenario.tags.join(' ')}`);
}

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
  const sandbox = await ScenarioCluster.start(loadScenario(dir, name), { wallClock: true });
  try {
    sandbox.writeKubeconfig(kubeconfig);
    print(`ready ${sandbox.server.url} scenario ${name} kubeconfig ${kubeconfig}`);
    await stopped;
  } finally {
    await sandbox.close();
  }
}
