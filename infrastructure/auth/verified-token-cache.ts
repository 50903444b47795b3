import type { Authenticated } from '../../domain/ports/authenticator.js';

/**
 * Verified JWTs by the SHA-256 of the token, until they expire, so a caller's
 * next requests skip the signature check. Bounded by entries and by the
 * characters of the callers' names and groups it holds; least recently used
 * first out. Keys are digests: the cache holds no token.
 */
export class VerifiedTokenCache {
  private readonly entries = new Map<string, { value: Authenticated; weight: number }>();
  private weight = 0;

  constructor(
    private readonly maxEntries = 10_000,
    private readonly maxWeight = 8 * 1024 * 1024,
  ) {}

  get(digest: string, now: number): Authenticated | undefined {
    const hit = this.entries.get(digest);
    if (!hit) return undefined;
    this.entries.delete(digest);
    if (hit.value.until <= now) {
      this.weight -= hit.weight;
      return undefined;
    }
    this.entries.set(digest, hit);
    return hit.value;
  }

  set(digest: string, value: Authenticated): void {
    const { username, groups } = value.caller;
    const weight = 64 + username.length + groups.reduce((n, g) => n + g.length + 8, 0);
    if (weight > this.maxWeight) return;
    const old = this.entries.get(digest);
    if (old) {
      this.entries.delete(digest);
      this.weight -= old.weight;
    }
    this.entries.set(digest, { value, weight });
    this.weight += weight;
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.weight <= this.maxWeight) break;
      this.entries.delete(key);
      this.weight -= entry.weight;
    }
  }

  /** Forgets every verdict (the key set they were checked against changed). */
  clear(): void {
    this.entries.clear();
    this.weight = 0;
  }

  get size(): number {
    return this.entries.size;
  }
}
