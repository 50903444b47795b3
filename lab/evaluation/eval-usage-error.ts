/** A problem with `svc eval`'s command line or the scenarios: nothing was run. */
export class EvalUsageError extends Error {}
