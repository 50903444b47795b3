import type { Clock, Timers } from '../domain/ports/clock.js';
import type { LlmProvider } from '../domain/ports/llm-provider.js';

/** What `version` says about the model beyond its settings: whether it answered a small call, and if not why. */
export interface ModelCheck {
  /** The model answered the probe (a configured provider only). */
  healthy: boolean;
  /** Why not, in the adapter's words (refused key, unknown model, unreachable server, timeout); never a credential. */
  error?: string;
  /** ISO 8601: when the probe ran (results are kept for `cacheMs`). */
  checkedAt: string;
}

export interface CheckModelOptions {
  /** How long a result is kept; default 30 s. */
  cacheMs?: number;
  /** Longest wait for the probe's answer; default 10 s. */
  timeoutMs?: number;
}

/** The probe: one short user message, a few output tokens. */
const PROBE = 'Health check from svc: reply with the single word ok.';
const PROBE_TOKENS = 16;

/**
 * Asks the configured model one small question (a real chat call with a few
 * output tokens, the same request path every tool uses), so a refused key, a
 * model the server does not have or an unreachable server shows in `version`
 * and `svc status` before the first remediate fails. One probe at a time
 * (concurrent callers share it), its result kept for 30 s, bounded by 10 s.
 * A provider that is not configured is not called.
 */
export class CheckModel {
  private cached?: { check: ModelCheck; at: number };
  private inflight?: Promise<ModelCheck>;
  private readonly cacheMs: number;
  private readonly timeoutMs: number;

  constructor(
    private readonly llm: LlmProvider,
    private readonly clock: Clock & Timers,
    options: CheckModelOptions = {},
  ) {
    this.cacheMs = options.cacheMs ?? 30_000;
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  async execute(): Promise<ModelCheck> {
    const status = this.llm.status();
    if (!status.configured) return { healthy: false, error: `not configured: ${status.hint ?? 'set the AI provider'}`, checkedAt: this.now() };
    if (this.cached && this.clock.now() - this.cached.at < this.cacheMs) return this.cached.check;
    this.inflight ??= this.probe().finally(() => (this.inflight = undefined));
    return this.inflight;
  }

  private async probe(): Promise<ModelCheck> {
    const at = this.clock.now();
    const timeout = new AbortController();
    const cancel = this.clock.schedule(this.timeoutMs, () => timeout.abort());
    let check: ModelCheck;
    try {
      await this.llm.chat([{ role: 'user', content: PROBE }], { maxOutputTokens: PROBE_TOKENS, signal: timeout.signal });
      check = { healthy: true, checkedAt: new Date(at).toISOString() };
    } catch (e) {
      const reason = timeout.signal.aborted ? `no answer within ${this.timeoutMs / 1000} s` : e instanceof Error ? e.message : String(e);
      check = { healthy: false, error: reason, checkedAt: new Date(at).toISOString() };
    } finally {
      cancel();
    }
    this.cached = { check, at };
    return check;
  }

  private now(): string {
    return new Date(this.clock.now()).toISOString();
  }
}
