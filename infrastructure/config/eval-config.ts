import type { ModelPrices } from '../../domain/evaluation/score-case.js';
import { ConfigError, str, type Env } from './env-parsers.js';

/**
 * SVC_MODEL_PRICES: what a model costs, for `svc eval`'s money figures:
 * `model=input/output` pairs, comma-separated, in USD per million tokens
 * (`gpt-4o=2.5/10,claude-sonnet-4=3/15`). Unset: no money figures.
 */
export function parseModelPrices(env: Env): ModelPrices {
  const raw = str(env, 'SVC_MODEL_PRICES');
  const prices = new Map<string, { input: number; output: number }>();
  if (!raw) return prices;
  for (const part of raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^([^=\s]{1,200})=(\d+(?:\.\d+)?)\/(\d+(?:\.\d+)?)$/.exec(part);
    if (!m) throw new ConfigError('SVC_MODEL_PRICES', `"${part.slice(0, 80)}" is not model=input/output (USD per million tokens, e.g. gpt-4o=2.5/10)`);
    prices.set(m[1], { input: Number(m[2]), output: Number(m[3]) });
  }
  return prices;
}
