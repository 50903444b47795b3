import { int, type Env } from './env-parsers.js';

/** The capability scan of manageOrgData. */
export interface OrgDataConfig {
  /** SVC_SCAN_BATCH_SIZE: kinds analysed at once (default 4). */
  scanBatchSize: number;
  /** SVC_SCAN_LEASE_MS: how long a scan's lease lasts without renewal; an interrupted scan resumes after it (default 60000). */
  scanLeaseMs: number;
  /** SVC_SCAN_KIND_TIMEOUT_MS: wall-clock limit of one kind's analysis (default 120000). */
  scanKindTimeoutMs: number;
}

export function parseOrgDataConfig(env: Env): OrgDataConfig {
  return {
    scanBatchSize: int(env, 'SVC_SCAN_BATCH_SIZE', 4, 1, 32),
    scanLeaseMs: int(env, 'SVC_SCAN_LEASE_MS', 60000, 1000, 3600000),
    scanKindTimeoutMs: int(env, 'SVC_SCAN_KIND_TIMEOUT_MS', 120000, 1000, 3600000),
  };
}
