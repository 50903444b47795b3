/** How much the fast answers keep, over every group. */
export interface KeptAnswersLimits {
  /** Most answers held at once. */
  maxAnswers: number;
  /** Most bytes held at once; one answer above a quarter of this is served but not kept. */
  maxBytes: number;
}

interface Group {
  version: object;
  answers: Map<string, Buffer>;
  /** When the group was last used, on the instance's own counter: the smallest gives way first. */
  used: number;
}

/**
 * Serialized answers kept ready, in groups (one per source of truth: the tool
 * registry, one prompt source). Each group is kept under a version, the object
 * the answers were computed from (the registry, a prompt library); a lookup
 * names the version the caller holds right now, and a group kept under any
 * other version is dropped on the spot, so bytes computed from a replaced,
 * refreshed or expired source are never served. Bounded by count and bytes;
 * the least recently used group gives way first.
 */
export class KeptAnswers {
  private readonly groups = new Map<string, Group>();
  private count = 0;
  private bytes = 0;
  private uses = 0;

  constructor(private readonly limits: KeptAnswersLimits) {}

  /** The bytes kept for `key` in `group` under `version`, or undefined. */
  get(group: string, version: object, key: string): Buffer | undefined {
    const g = this.groups.get(group);
    if (!g) return undefined;
    if (g.version !== version) {
      this.drop(group);
      return undefined;
    }
    const hit = g.answers.get(key);
    if (hit) g.used = ++this.uses;
    return hit;
  }

  /** Keeps `bytes` for `key` in `group` under `version`, replacing whatever the group held under another version. */
  put(group: string, version: object, key: string, bytes: Buffer): void {
    if (bytes.length > this.limits.maxBytes / 4) return;
    let g = this.groups.get(group);
    if (g && g.version !== version) {
      this.drop(group);
      g = undefined;
    }
    if (!g) {
      g = { version, answers: new Map(), used: 0 };
      this.groups.set(group, g);
    }
    g.used = ++this.uses;
    const previous = g.answers.get(key);
    if (previous) this.remove(g, key, previous);
    while (this.count + 1 > this.limits.maxAnswers || this.bytes + bytes.length > this.limits.maxBytes) {
      if (!this.evictOldest()) return;
    }
    // eviction may have emptied and removed this very group
    if (!this.groups.has(group)) this.groups.set(group, g);
    g.answers.set(key, bytes);
    this.count++;
    this.bytes += bytes.length;
  }

  /** Drops every answer of `group` (its source went away or changed). */
  drop(group: string): void {
    const g = this.groups.get(group);
    if (!g) return;
    for (const [key, b] of g.answers) this.remove(g, key, b);
    this.groups.delete(group);
  }

  /** What is held now; for tests and diagnostics. */
  stats(): { groups: number; answers: number; bytes: number } {
    return { groups: this.groups.size, answers: this.count, bytes: this.bytes };
  }

  /** Drops the oldest answer of the least recently used group; false when nothing is left to drop. */
  private evictOldest(): boolean {
    let name = '';
    let g: Group | undefined;
    for (const [n, candidate] of this.groups) {
      if (!g || candidate.used < g.used) {
        name = n;
        g = candidate;
      }
    }
    if (!g) return false;
    const [key, b] = g.answers.entries().next().value ?? [];
    if (key !== undefined) this.remove(g, key, b as Buffer);
    if (g.answers.size === 0) this.groups.delete(name);
    return true;
  }

  private remove(g: Group, key: string, b: Buffer): void {
    g.answers.delete(key);
    this.count--;
    this.bytes -= b.length;
  }
}
