import { LimitReachedError } from '../../domain/errors.js';

/**
 * Open event streams per caller on this replica (`SVC_RUN_STREAMS_PER_CALLER`):
 * one caller holding idle streams cannot take every connection the server
 * accepts. Counts only streams that are open, so the map holds at most one
 * entry per caller with an open stream.
 */
export class StreamSlots {
  private readonly open = new Map<string, number>();

  constructor(readonly maxPerCaller: number) {}

  /** Takes a slot for `callerKey`, or throws 429 RATE_LIMITED; the returned release is idempotent. */
  take(callerKey: string): () => void {
    const n = this.open.get(callerKey) ?? 0;
    if (n >= this.maxPerCaller)
      throw new LimitReachedError(
        `At most ${this.maxPerCaller} event streams may be open per caller (SVC_RUN_STREAMS_PER_CALLER); close one, or poll GET /api/v1/runs/{runId}`,
      );
    this.open.set(callerKey, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(callerKey) ?? 1) - 1;
      if (left <= 0) this.open.delete(callerKey);
      else this.open.set(callerKey, left);
    };
  }

  /** Streams open for `callerKey` now. */
  count(callerKey: string): number {
    return this.open.get(callerKey) ?? 0;
  }
}
