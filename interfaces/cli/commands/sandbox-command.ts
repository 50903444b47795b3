import type { Command } from 'commander';
import { UsageError } from '../cli-errors.js';
import { loadLab } from '../lab-entry.js';
import { writeErr, writeOut } from '../output.js';

/** Resolves at the first SIGINT or SIGTERM. */
function untilStopped(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

export function registerSandboxCommand(program: Command): void {
  program
    .command('sandbox')
    .description("Serve a scenario's broken cluster as a Kubernetes API on 127.0.0.1 (TLS), to try svc on without a cluster; --list shows the scenarios")
    .option('--list', 'print one line per scenario: its name, then its tags')
    .option('--scenario <name>', 'the scenario to serve')
    .option('--kubeconfig <file>', 'where to write the kubeconfig that reaches it (mode 0600)')
    .option('--try', "also start svc on it, with a model that replays the scenario's recorded answers (no provider needed), and print the commands to run")
    .option('--scenario-dir <dir>', 'a scenarios folder other than the one shipped with svc')
    .option('--clusters <n>', 'serve N sandbox clusters of the scenario behind one kubeconfig, a context each (for SVC_CLUSTERS); 1 to 16')
    .action(async (opts: { list?: boolean; scenario?: string; kubeconfig?: string; scenarioDir?: string; try?: boolean; clusters?: string }) => {
      // Loaded only here, at run time: the other commands never pull in lab/.
      const { listScenarios, serveSandbox, trySandbox } = await loadLab();
      if (opts.list) {
        if (opts.scenario || opts.kubeconfig || opts.try) throw new UsageError('--list goes alone');
        for (const line of listScenarios(opts.scenarioDir)) writeOut(line);
        return;
      }
      if (opts.try && !opts.scenario) throw new UsageError('--try needs --scenario NAME');
      const clusters = opts.clusters === undefined ? 1 : /^\d{1,2}$/.test(opts.clusters) ? Number(opts.clusters) : Number.NaN;
      if (!(clusters >= 1 && clusters <= 16)) throw new UsageError(`--clusters must be a number from 1 to 16, got "${opts.clusters}"`);
      if (opts.try && clusters > 1) throw new UsageError('--try serves one cluster: leave out --clusters');
      if (!opts.try && (!opts.scenario || !opts.kubeconfig)) throw new UsageError('give --scenario NAME and --kubeconfig FILE (or --try), or --list');
      try {
        if (opts.try) await trySandbox(opts.scenario!, opts.kubeconfig, untilStopped(), writeOut, opts.scenarioDir);
        else await serveSandbox(opts.scenario!, opts.kubeconfig!, untilStopped(), writeOut, opts.scenarioDir, clusters);
      } catch (e) {
        if (e instanceof Error && /^(no scenario named|scenario \S+ has no transcript)/.test(e.message)) throw new UsageError(e.message);
        throw e;
      }
      writeErr('sandbox stopped');
    });
}
