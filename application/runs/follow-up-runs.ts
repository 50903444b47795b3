import type { Caller } from '../../domain/auth/caller.js';
import type { FollowUpRuns } from '../actions/execution-verifier.js';
import type { RunScope } from './run-scope.js';

/**
 * The follow-up runs the verdict is built with, before the runs module exists
 * (the runs execute the tools, which hold the verdict): bound to this
 * replica's RunExecutor once it is made. Unbound (a part built without runs),
 * it answers undefined and the work goes on untracked.
 */
export class FollowUpRunsLink implements FollowUpRuns {
  private target?: FollowUpRuns;

  bind(target: FollowUpRuns): void {
    this.target = target;
  }

  start(what: { tool: string; caller: Caller }, work: (scope: RunScope) => Promise<unknown>): Promise<string | undefined> {
    return this.target ? this.target.start(what, work) : Promise.resolve(undefined);
  }
}
