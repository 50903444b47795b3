import type { GuardedWrite } from '../guarded-write/guarded-write.js';
import type { Clock, Timers } from '../../domain/ports/clock.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { ClusterWriter } from '../../domain/ports/cluster-writer.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import type { SessionStore } from '../../domain/ports/session-store.js';
import type { Tracer } from '../../domain/ports/tracer.js';
import type { PolicySource } from '../actions/policy-source.js';
import type { WriteRecorder } from '../ledger/change-recorder.js';
import type { ApprovalPolicy } from '../../domain/auth/session-owner.js';
import type { ExecutionVerifier } from '../actions/verify-execution.js';

/** Per run, from the configuration: SVC_AI_TIMEOUT_MS and SVC_AI_MAX_TOKENS. */
export interface AiRunLimits {
  timeoutMs: number;
  maxTokens: number;
}

/**
 * The ports a cluster-changing AI tool (remediate, operate) is built from.
 * The safety collaborators (the guarded-write pipeline with its write scope
 * and policies, the policies shown to the model, the ledger's recorder, the
 * approval rule, the verdict after execution) are required: a tool built
 * without one throws at construction (requireDependencies), so a wiring
 * mistake stops svc's start instead of skipping a check. Tests pass the
 * null objects named for them (OPEN_WRITE_SCOPE, NO_POLICIES,
 * NO_SECOND_APPROVER; test/fakes/null-safety.ts for the recorder and verify).
 */
export interface AiToolDeps {
  llm: LlmProvider;
  reader: ClusterReader;
  writer: ClusterWriter;
  sessions: SessionStore;
  tracer: Tracer;
  clock: Clock & Timers;
  limits: AiRunLimits;
  /** The one guarded-write pipeline every preview and execution goes through (SVC_WRITE_NAMESPACES, SVC_WRITE_KINDS, SVC_IMAGE_REGISTRIES, svc's namespace, the stored policies). */
  guard: GuardedWrite;
  /** The organisation's policies: those closest to the issue or intent are shown to the model (the guard checks every stored one). */
  policies: PolicySource;
  /** Records every write of an execution in the change ledger. */
  recorder: WriteRecorder;
  /** SVC_REQUIRE_SECOND_APPROVER and SVC_PROTECTED_NAMESPACES. */
  approval: ApprovalPolicy;
  /** The deterministic verdict after each execution (and the revert of a degraded one). */
  verify: ExecutionVerifier;
}

/** The safety collaborators of AiToolDeps, by name: checked at construction. */
export const AI_TOOL_SAFETY_DEPS = ['guard', 'policies', 'recorder', 'approval', 'verify'] as const satisfies readonly (keyof AiToolDeps)[];
