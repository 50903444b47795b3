import { NO_POLICIES, type PolicySource } from '../../application/actions/policy-source.js';
import type { ExecutionVerifier } from '../../application/actions/verify-execution.js';
import type { AiToolDeps } from '../../application/ai/ai-tool-deps.js';
import { GuardedWrite } from '../../application/guarded-write/guarded-write.js';
import type { WriteRecording } from '../../application/actions/execute-actions.js';
import type { WriteRecorder } from '../../application/ledger/change-recorder.js';
import { ANONYMOUS_CALLER } from '../../domain/auth/caller.js';
import { OPEN_WRITE_SCOPE, type WriteScope } from '../../domain/actions/write-scope.js';
import { NO_SECOND_APPROVER } from '../../domain/auth/session-owner.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { ClusterWriter } from '../../domain/ports/cluster-writer.js';

/**
 * The null objects of the safety collaborators, for tests about something
 * else, named as what they are: svc itself never builds a writing use case
 * without the real ones (requireDependencies stops it at construction).
 */

/** Records nothing: the write is sent and its outcome handed back, with no ledger entry. */
export const NO_RECORDER: WriteRecorder = {
  write: (_context, _planned, send) =>
    send().then(
      (object) => ({ object }),
      (error: unknown) => ({ error }),
    ),
};

/** An execution's writes recorded nowhere (NO_RECORDER), for an anonymous caller. */
export const UNRECORDED: WriteRecording = {
  recorder: NO_RECORDER,
  context: { caller: ANONYMOUS_CALLER, tool: 'test', approval: { mode: 'manual', by: 'test' } },
};

/** Judges nothing: no snapshot, no verdict after an execution. */
export const NO_VERIFY: ExecutionVerifier = {
  settings: { windowMs: 0 },
  snapshot: async () => new Map(),
  verify: async () => undefined,
};

/** The one guarded-write pipeline over `cluster`, with no allow-list and no policy unless given. */
export function guardOver(
  cluster: ClusterReader & ClusterWriter,
  options: { reader?: ClusterReader; scope?: WriteScope; policies?: PolicySource } = {},
): GuardedWrite {
  return new GuardedWrite({
    reader: options.reader ?? cluster,
    writer: cluster,
    scope: options.scope ?? OPEN_WRITE_SCOPE,
    policies: options.policies ?? NO_POLICIES,
  });
}

/**
 * The safety collaborators of remediate and operate with nothing to check
 * and nothing recorded (OPEN_WRITE_SCOPE, NO_POLICIES, NO_RECORDER,
 * NO_SECOND_APPROVER, NO_VERIFY); `overrides` puts a real one in.
 */
export function openSafety(
  cluster: ClusterReader & ClusterWriter,
  overrides: Partial<Pick<AiToolDeps, 'policies' | 'recorder' | 'approval' | 'verify'>> & { reader?: ClusterReader; scope?: WriteScope } = {},
): Pick<AiToolDeps, 'guard' | 'policies' | 'recorder' | 'approval' | 'verify'> {
  const policies = overrides.policies ?? NO_POLICIES;
  return {
    guard: guardOver(cluster, { reader: overrides.reader, scope: overrides.scope, policies }),
    policies,
    recorder: overrides.recorder ?? NO_RECORDER,
    approval: overrides.approval ?? NO_SECOND_APPROVER,
    verify: overrides.verify ?? NO_VERIFY,
  };
}
