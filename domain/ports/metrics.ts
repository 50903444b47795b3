/** How a tool run ended. */
export type ToolOutcome = 'success' | 'error' | 'cancelled';

/** Why svc refused to do what was asked (the guard that said no). */
export type RefusalReason = 'role' | 'allow-list' | 'policy' | 'risk';

/** Tokens one model call spent, as the provider reported them. */
export interface TokenUsage {
  inputTokens?: number;
  outputTokens?: number;
}

/**
 * Counters and histograms of what svc does, exported by the adapter (today in
 * the Prometheus text format at GET /metrics). Every method is cheap,
 * synchronous and never throws; label values are bounded by the adapter (a
 * value past its limit of distinct values is counted as `other`), so a caller
 * may pass what it has. Callers pass names, never raw paths, queries or
 * anything carrying a credential.
 */
export interface Metrics {
  /** One HTTP request answered: the route template (never the raw path), its method and status, how long it took. */
  httpRequest(method: string, route: string, status: number, seconds: number): void;
  /** One tool run ended (REST, MCP, CLI or a run). */
  toolRun(tool: string, outcome: ToolOutcome): void;
  /** With a fleet (SVC_CLUSTERS): one tool run for one cluster ended, counted besides `toolRun`. */
  clusterToolRun?(cluster: string, tool: string, outcome: ToolOutcome): void;
  /** One call to the model; `outcome` is `success` or the error code it failed with. */
  modelCall(provider: string, model: string, outcome: string, usage?: TokenUsage): void;
  /** One write sent to the cluster (dry runs are not writes); `outcome` is `success` or the error code; `cluster` the current work's (SVC_CLUSTERS). */
  clusterWrite(verb: string, outcome: string, cluster?: string): void;
  /** svc refused a call or a change for `reason`. */
  refusal(reason: RefusalReason): void;
  /** One change-ledger append; `outcome` is `success` or `error`. */
  ledgerAppend(outcome: 'success' | 'error'): void;
  /** How many runs this replica is running now. */
  runsActive(count: number): void;
  /** One request refused by a rate limit; `budget` names which (`ai`, `other`, `runs`). */
  rateLimited(budget: string): void;
}

/** Records nothing: for tests and for code built without a composition root. */
export const NO_METRICS: Metrics = {
  httpRequest: () => undefined,
  toolRun: () => undefined,
  modelCall: () => undefined,
  clusterWrite: () => undefined,
  refusal: () => undefined,
  ledgerAppend: () => undefined,
  runsActive: () => undefined,
  rateLimited: () => undefined,
};
