import type { ScanState } from '../../domain/orgdata/scan-state.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { LeaseOutcome, ScanLease, ScanStateStore } from '../../domain/ports/scan-state-store.js';

/** In-memory ScanStateStore for unit tests; `saves` counts saved states (copies), `failWith` makes every call throw. */
export class FakeScanStateStore implements ScanStateStore {
  state?: ScanState;
  lease?: ScanLease;
  readonly saves: ScanState[] = [];
  failWith?: Error;

  constructor(private readonly clock: Clock) {}

  async load(): Promise<ScanState | undefined> {
    this.guard();
    return this.state ? structuredClone(this.state) : undefined;
  }

  async save(state: ScanState): Promise<void> {
    this.guard();
    this.state = structuredClone(state);
    this.saves.push(structuredClone(state));
  }

  async acquire(holder: string, ttlMs: number): Promise<LeaseOutcome> {
    this.guard();
    const now = this.clock.now();
    if (this.lease && this.lease.holder !== holder && now <= this.lease.expiresAt) return { acquired: false, lease: { ...this.lease } };
    this.lease = { holder, expiresAt: now + ttlMs };
    return { acquired: true, lease: { ...this.lease } };
  }

  async renew(holder: string, ttlMs: number): Promise<boolean> {
    this.guard();
    if (this.lease?.holder !== holder) return false;
    this.lease = { holder, expiresAt: this.clock.now() + ttlMs };
    return true;
  }

  async release(holder: string): Promise<void> {
    this.guard();
    if (this.lease?.holder === holder) this.lease = undefined;
  }

  private guard(): void {
    if (this.failWith) throw this.failWith;
  }
}
