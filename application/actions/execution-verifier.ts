import type { Caller } from '../../domain/auth/caller.js';
import type { ResourceRef } from '../../domain/cluster/kube-types.js';
import type { RunScope } from '../runs/run-scope.js';
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
  /** The tool that wrote (`remediate`, `operate`, `deployManifests`): what a follow-up run is named for. */
  tool?: string;
  /**
   * Where a verdict that came after the answer goes: the tool records it on
   * its session. Called once the settle window ends in the background (and a
   * degraded execution was reverted or reported); never when the verdict was in the answer.
   */
  onLaterVerdict?: (verification: ExecutionVerification) => Promise<void>;
}

/**
 * Work a tool call leaves behind as a run of its own (the rest of a settle
 * window after the answer): stored running for the caller, its lease kept,
 * its events what the work reports, ended with the work's result. The
 * runs module implements it (RunExecutor); `undefined`: runs are not
 * available here, the work goes on untracked.
 */
export interface FollowUpRuns {
  start(what: { tool: string; caller: Caller }, work: (scope: RunScope) => Promise<unknown>): Promise<string | undefined>;
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
