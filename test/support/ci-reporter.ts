import Mocha from 'mocha';

/**
 * The spec reporter plus one plain closing line, `N passed, N failed`
 * (`, N skipped` when any), which CI reads.
 */
class CiReporter extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const s = runner.stats ?? { passes: 0, failures: 0, pending: 0 };
      const skipped = s.pending ? `, ${s.pending} skipped` : '';
      process.stdout.write(`\n${s.passes} passed, ${s.failures} failed${skipped}\n`);
    });
  }
}

export = CiReporter;
