import { setMaxListeners } from 'node:events';
import type { TokenUsage } from '../../domain/llm/llm-types.js';
import { withRunSignal } from '../runs/run-scope.js';

/** The limit that ended a run early. */
export type BudgetLimit = 'model-calls' | 'tokens' | 'deadline';

export interface BudgetLimits {
  /** Model calls in the whole run (remediate 25, operate 30). */
  maxCalls: number;
  /** Input + output tokens summed over the run. */
  maxTokens: number;
  /** Wall-clock limit of the run, milliseconds (SVC_AI_TIMEOUT_MS). */
  timeoutMs: number;
}

export function emptyUsage(): TokenUsage {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 };
}

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheCreationTokens: a.cacheCreationTokens + b.cacheCreationTokens,
  };
}

/**
 * What one AI tool run may still spend: model calls, tokens and time. Every
 * model call of the run (the loop's and the structured ones) is counted here,
 * and `signal` aborts whatever is in flight when the deadline passes, so a run
 * never hangs past it.
 */
export class RunBudget {
  readonly signal: AbortSignal;
  private used = 0;
  private spent = emptyUsage();

  constructor(readonly limits: BudgetLimits) {
    // inside a run started with `Prefer: respond-async`, a cancel ends the run's budget like its deadline
    this.signal = withRunSignal(AbortSignal.timeout(limits.timeoutMs));
    // Every model call of the run listens on this one signal (the HTTP client may keep its listener until the run ends):
    // up to maxCalls listeners is expected, not a leak.
    setMaxListeners(Math.max(10, limits.maxCalls * 2 + 10), this.signal);
  }

  get calls(): number {
    return this.used;
  }

  get usage(): TokenUsage {
    return { ...this.spent };
  }

  get remainingCalls(): number {
    return Math.max(0, this.limits.maxCalls - this.used);
  }

  /** Counts one model call and its tokens. */
  record(usage: TokenUsage): void {
    this.used += 1;
    this.spent = addUsage(this.spent, usage);
  }

  /** Counts a model call that failed (it still cost a call). */
  recordFailedCall(): void {
    this.used += 1;
  }

  /** The first limit reached, or undefined while the run may go on. */
  exhausted(): BudgetLimit | undefined {
    if (this.signal.aborted) return 'deadline';
    if (this.used >= this.limits.maxCalls) return 'model-calls';
    if (this.spent.inputTokens + this.spent.outputTokens >= this.limits.maxTokens) return 'tokens';
    return undefined;
  }

  /** `work`, or a rejection as soon as the deadline passes (the work itself is also given the signal where it can take one). */
  race<T>(work: Promise<T>): Promise<T> {
    if (this.signal.aborted) return Promise.reject(new DeadlineReached());
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(new DeadlineReached());
      this.signal.addEventListener('abort', onAbort, { once: true });
      work.then(
        (v) => {
          this.signal.removeEventListener('abort', onAbort);
          resolve(v);
        },
        (e) => {
          this.signal.removeEventListener('abort', onAbort);
          reject(this.signal.aborted ? new DeadlineReached() : e);
        },
      );
    });
  }

  /** Words for a person: which limit stopped the run. */
  describe(limit: BudgetLimit): string {
    switch (limit) {
      case 'model-calls':
        return `the limit of ${this.limits.maxCalls} model calls was reached`;
      case 'tokens':
        return `the limit of ${this.limits.maxTokens} tokens was reached`;
      case 'deadline':
        return `the time limit of ${this.limits.timeoutMs} ms (SVC_AI_TIMEOUT_MS) was reached`;
    }
  }
}

/** Thrown by `RunBudget.race` when the run's deadline passes. */
export class DeadlineReached extends Error {
  constructor() {
    super('the run deadline passed');
  }
}
