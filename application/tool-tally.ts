import { AsyncLocalStorage } from 'node:async_hooks';
import type { TokenUsage } from '../domain/ports/metrics.js';

/** What one tool call cost, as its log line says it: model calls and their tokens, cluster writes sent. */
export interface ToolTally {
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  clusterWrites: number;
}

/*
 * The tally travels with the async work of one tool call (AsyncLocalStorage),
 * so the metered ports count into it without every use case passing it
 * down. Outside a tool call there is none and counting is a no-op.
 */
const storage = new AsyncLocalStorage<ToolTally>();

export const newTally = (): ToolTally => ({ modelCalls: 0, inputTokens: 0, outputTokens: 0, clusterWrites: 0 });

export function withinTally<T>(tally: ToolTally, work: () => Promise<T>): Promise<T> {
  return storage.run(tally, work);
}

/** One model call of the current tool call, with the tokens it reported. */
export function tallyModelCall(usage: TokenUsage | undefined): void {
  const t = storage.getStore();
  if (!t) return;
  t.modelCalls += 1;
  t.inputTokens += usage?.inputTokens ?? 0;
  t.outputTokens += usage?.outputTokens ?? 0;
}

/** One write sent to the cluster by the current tool call (dry runs are not writes). */
export function tallyClusterWrite(): void {
  const t = storage.getStore();
  if (t) t.clusterWrites += 1;
}
