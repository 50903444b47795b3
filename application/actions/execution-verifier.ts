import type { Caller } from '../../domain/auth/caller.js';
import type { ResourceRef } from '../../domain/cluster/kube-types.js';
import type { ExecutedWrite, ExecutionVerification, OnFailure, VerifySettings, VerifySnapshot } from './verify-execution.js';

/** The input of one verdict: the snapshot, the writes made, what is left of the run, what to do on degraded, and for whom. */
export interface VerifyInput {
  snapshot: VerifySnapshot;
  writes: readonly ExecutedWrite[];
  /** Milliseconds left of the run's deadline. */
  deadlineMs: number;
  onFailure: OnFailure;
  /** Who the reverts are made for: the caller who executed (or whose automatic rule did). */
  caller?: Caller;
}

/**
 * The verdict after every execution, as the writing tools take it
 * (VerifyExecution). Required of them: a tool built without one does not
 * start; a test that means to judge nothing passes the null object named for
 * it, whose `verify` answers undefined (no verdict).
 */
export interface ExecutionVerifier {
  readonly settings: VerifySettings;
  /** Reads each object the execution will change, before the write. */
  snapshot(targets: readonly ResourceRef[]): Promise<VerifySnapshot>;
  /** The verdict over the settle window (and the revert of a degraded execution); undefined only from a null verifier. */
  verify(input: VerifyInput): Promise<ExecutionVerification | undefined>;
}
