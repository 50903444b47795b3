import type { ScanState } from '../orgdata/scan-state.js';

/** Who may run the scan, until when. */
export interface ScanLease {
  /** Opaque id of the holder (one per process and scanner). */
  holder: string;
  /** Milliseconds since the epoch, on the store's clock. */
  expiresAt: number;
}

export type LeaseOutcome = { acquired: true; lease: ScanLease } | { acquired: false; lease: ScanLease };

/**
 * Where the capability scan keeps its progress and its lease, so that one
 * scan runs at a time and a restarted svc resumes it. There is one scan slot:
 * the latest scan's state, and one lease.
 *
 * Contract (test/contract/scan-state-store-contract.ts holds every adapter to it):
 * - `load` answers the state last saved, or undefined when none was; what it
 *   returns is a deep copy (changing it changes nothing stored).
 * - `save` replaces the stored state whole; it is durable when the promise
 *   resolves, and a crash mid-save leaves the previous state readable.
 * - `acquire(holder, ttlMs)` takes the lease, with `expiresAt` = now + ttlMs,
 *   when there is none, when it has expired (now > expiresAt) or when `holder`
 *   already holds it; otherwise it answers `{ acquired: false, lease }` with
 *   the current holder's lease and changes nothing. Of concurrent acquires by
 *   different holders at most one succeeds.
 * - `renew(holder, ttlMs)` extends the lease to now + ttlMs and answers true
 *   while `holder` holds it (even expired, when nobody took it since); false
 *   when another holder has it or there is none.
 * - `release(holder)` drops the lease when `holder` holds it; otherwise a no-op.
 * - "now" is the Clock the adapter was built with.
 * - A failure of the store itself is DependencyError('scans', ...).
 */
export interface ScanStateStore {
  load(): Promise<ScanState | undefined>;
  save(state: ScanState): Promise<void>;
  acquire(holder: string, ttlMs: number): Promise<LeaseOutcome>;
  renew(holder: string, ttlMs: number): Promise<boolean>;
  release(holder: string): Promise<void>;
}
