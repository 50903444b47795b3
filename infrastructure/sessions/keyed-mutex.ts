/**
 * One promise chain per key: `run` calls for the same key execute one at a
 * time, in call order; different keys never wait for each other. A key's
 * entry is deleted once its last holder finishes, so the map holds only keys
 * with work in flight.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    // chained on `done` only, which always resolves: one holder's failure never poisons the next
    const tail = previous.then(() => done);
    this.tails.set(key, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Keys with a holder or waiters right now. */
  get size(): number {
    return this.tails.size;
  }
}
