import { Option, type Command } from 'commander';
import { RequestFailed, UsageError } from '../cli-errors.js';
import { loadLab } from '../lab-entry.js';
import { writeOut } from '../output.js';

const positiveInt = (flag: string) => (v: string) => {
  if (!/^\d{1,6}$/.test(v) || Number(v) < 1) throw new UsageError(`${flag} takes a whole number of at least 1`);
  return Number(v);
};
const rate = (v: string) => {
  const n = Number(v);
  if (!/^(0(\.\d+)?|1(\.0+)?)$/.test(v) || !(n >= 0 && n <= 1)) throw new UsageError('--min-pass takes a number from 0 to 1');
  return n;
};

export function registerEvalCommand(program: Command): void {
  program
    .command('eval')
    .description(
      "Run scenarios through svc's use cases in process (the configured model, or --replay of the recorded answers) on the sandbox, and score each case",
    )
    .option('--scenario <name...>', 'only these scenarios')
    .option('--tags <tags>', 'only scenarios carrying any of these tags (comma-separated)')
    .addOption(new Option('--limit <n>', 'at most this many scenarios').argParser(positiveInt('--limit')))
    .addOption(new Option('--repeat <k>', 'run each scenario k times (pass^k: all k pass)').argParser(positiveInt('--repeat')).default(1))
    .option('--replay', "answer with each scenario's recorded transcript instead of a model: scores svc, not a model")
    .option('--record', "write each scenario's transcript.yaml from the live model's answers (only when its case passed; with the model and date)")
    .option('--force', 'with --record: keep the transcript of a case that failed too (marked failed)')
    .option(
      '--baselines',
      'also run the built-in baselines (do nothing, always restart, always more memory, list every cause, parrot the issue) and print their scores beside; a scenario one passes is flagged',
    )
    .option(
      '--judge <model>',
      "judge each diagnosis against the scenario's facts with this model of the configured provider (temperature 0, pinned in the report) instead of the patterns",
    )
    .option('--report-json <file>', 'write one record per case and repeat, with the scorecard, as JSON')
    .option('--report-md <file>', 'write the scorecard and the failures as Markdown')
    .addOption(new Option('--min-pass <rate>', 'exit 1 when pass@1 is below this rate (0 to 1)').argParser(rate))
    .option('--scenario-dir <dir>', 'a scenarios folder other than the one shipped with svc')
    .action(async (o: Record<string, unknown>) => {
      // Loaded only here, at run time: the other commands never pull in lab/ (the harness, its sandbox, its adapters).
      const { EvalUsageError, runEvaluation } = await loadLab();
      const options = {
        scenarios: (o.scenario as string[] | undefined) ?? [],
        tags:
          typeof o.tags === 'string'
            ? o.tags
                .split(',')
                .map((t) => t.trim())
                .filter(Boolean)
            : [],
        limit: o.limit as number | undefined,
        repeat: o.repeat as number,
        replay: o.replay === true,
        record: o.record === true,
        force: o.force === true,
        baselines: o.baselines === true,
        ...(typeof o.judge === 'string' ? { judge: o.judge } : {}),
        reportJson: o.reportJson as string | undefined,
        reportMd: o.reportMd as string | undefined,
        minPass: o.minPass as number | undefined,
        dir: o.scenarioDir as string | undefined,
      };
      let outcome;
      try {
        outcome = await runEvaluation(options, process.env, writeOut);
      } catch (e) {
        if (e instanceof EvalUsageError || (e instanceof Error && e.name === 'ScenarioError') || (e instanceof Error && e.name === 'ConfigError'))
          throw new UsageError(e.message);
        throw e;
      }
      if (!outcome.passed)
        throw new RequestFailed('BELOW_MIN_PASS', `pass@1 ${outcome.report.scorecard.overall.passAt1.toFixed(2)} is below --min-pass ${options.minPass}`);
    });
}
