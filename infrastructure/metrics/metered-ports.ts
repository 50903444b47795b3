import { DomainError } from '../../domain/errors.js';
import type { ChangeLedger } from '../../domain/ports/change-ledger.js';
import type { ClusterClient } from '../../domain/ports/cluster-client.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import type { Metrics } from '../../domain/ports/metrics.js';
import type { ChatOptions, ChatResult } from '../../domain/llm/llm-types.js';
import { UnconfiguredClusterClient } from '../not-configured/unconfigured-cluster-client.js';
import { UnconfiguredLlmProvider } from '../not-configured/unconfigured-llm-provider.js';
import type { Logger } from '../../domain/ports/logger.js';
import { tallyClusterWrite, tallyModelCall } from '../../application/tool-tally.js';
import { currentCluster } from '../../application/cluster/current-cluster.js';

type Method = (...args: unknown[]) => Promise<unknown>;
/** What to record around one call of a method: `settled` gets the result or the error. */
type Plan = Readonly<Record<string, (args: unknown[]) => (outcome: { result?: unknown; error?: unknown }) => void>>;

/** The error's code (a DomainError's, bounded by the domain's table), else `error`. */
export function outcomeOf(error: unknown): string {
  return error instanceof DomainError ? error.code : 'error';
}

/**
 * Wraps an adapter so each planned method records its outcome; every other
 * method (and property) passes through, so a method added to a port keeps
 * working unmetered. Results and errors are the inner adapter's own.
 */
function meterMethods<T extends object>(inner: T, plan: Plan): T {
  const wrappers = new Map<string, Method>();
  return new Proxy(inner, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (typeof property !== 'string' || !Object.hasOwn(plan, property)) return value.bind(target);
      let wrapper = wrappers.get(property);
      if (!wrapper) {
        wrapper = async (...args: unknown[]) => {
          const settled = plan[property]!(args);
          try {
            const result = await (Reflect.get(target, property, target) as Method).apply(target, args);
            settled({ result });
            return result;
          } catch (error) {
            settled({ error });
            throw error;
          }
        };
        wrappers.set(property, wrapper);
      }
      return wrapper;
    },
  });
}

/**
 * Model calls by provider, model and outcome, and the tokens each reported;
 * each also counted into the current tool call's tally, and one debug line per
 * call (provider, model, outcome, duration, tokens). An unconfigured provider makes no call: left as it is.
 */
export function meteredLlm(inner: LlmProvider, metrics: Metrics, logger?: Logger): LlmProvider {
  if (inner instanceof UnconfiguredLlmProvider) return inner;
  return meterMethods(inner, {
    chat: (args) => {
      const status = inner.status();
      const model = (args[1] as ChatOptions | undefined)?.model ?? status.model ?? 'unknown';
      const started = Date.now();
      return ({ result, error }) => {
        const outcome = error === undefined ? 'success' : outcomeOf(error);
        const usage = error === undefined ? (result as ChatResult).usage : undefined;
        metrics.modelCall(status.provider, model, outcome, usage);
        tallyModelCall(usage);
        logger?.debug('model call', {
          provider: status.provider,
          model,
          outcome,
          durationMs: Date.now() - started,
          inputTokens: usage?.inputTokens ?? 0,
          outputTokens: usage?.outputTokens ?? 0,
        });
      };
    },
  });
}

/** Writes sent to the cluster (apply, create, patch, delete: dry runs and waits are not writes), by verb and outcome (and the current work's cluster, for a fleet); each counted into the current tool call's tally. */
export function meteredCluster(inner: ClusterClient, metrics: Metrics): ClusterClient {
  if (inner instanceof UnconfiguredClusterClient) return inner;
  const write = (verb: string) => () => (o: { error?: unknown }) => {
    metrics.clusterWrite(verb, o.error === undefined ? 'success' : outcomeOf(o.error), currentCluster());
    tallyClusterWrite();
  };
  return meterMethods(inner, { apply: write('apply'), create: write('create'), patch: write('patch'), delete: write('delete') });
}

/** Ledger appends by outcome. */
export function meteredLedger(inner: ChangeLedger, metrics: Metrics): ChangeLedger {
  return meterMethods(inner, { append: () => (o) => metrics.ledgerAppend(o.error === undefined ? 'success' : 'error') });
}
