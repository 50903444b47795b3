import type { WriteScope } from '../../domain/actions/write-scope.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { ClusterWriter } from '../../domain/ports/cluster-writer.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import type { SessionStore } from '../../domain/ports/session-store.js';
import type { Tracer } from '../../domain/ports/tracer.js';
import type { PolicySource } from '../actions/policy-source.js';
import type { ChangeRecorder } from '../ledger/change-recorder.js';
import type { ApprovalPolicy } from '../../domain/auth/session-owner.js';
import type { VerifyExecution } from '../actions/verify-execution.js';

/** Per run, from the configuration: SVC_AI_TIMEOUT_MS and SVC_AI_MAX_TOKENS. */
export interface AiRunLimits {
  timeoutMs: number;
  maxTokens: number;
}

/** The ports a cluster-changing AI tool (remediate, operate) is built from. */
export interface AiToolDeps {
  llm: LlmProvider;
  reader: ClusterReader;
  writer: ClusterWriter;
  sessions: SessionStore;
  tracer: Tracer;
  clock: Clock;
  limits: AiRunLimits;
  /** SVC_WRITE_NAMESPACES, SVC_WRITE_KINDS and svc's own namespace; default: no allow-list, namespace unknown. */
  writeScope?: WriteScope;
  /** The organisation's policies each action is checked against; default none. */
  policies?: PolicySource;
  /** Records every write of an execution in the change ledger. */
  recorder?: ChangeRecorder;
  /** SVC_REQUIRE_SECOND_APPROVER and SVC_PROTECTED_NAMESPACES; absent: no second approver. */
  approval?: ApprovalPolicy;
  /** The deterministic verdict after each execution (and the revert of a degraded one); absent: no verdict. */
  verify?: VerifyExecution;
}
