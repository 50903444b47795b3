import type { AiToolDeps } from '../../application/ai/ai-tool-deps.js';
import type { PolicySource } from '../../application/actions/policy-source.js';
import type { GuardedWrite } from '../../application/guarded-write/guarded-write.js';
import { VerifyExecution, type FollowUpRuns } from '../../application/actions/verify-execution.js';
import { DeliverFix } from '../../application/gitops/deliver-fix.js';
import type { ChangeRecorder } from '../../application/ledger/change-recorder.js';
import type { RevertChange } from '../../application/ledger/revert-change.js';
import { Operate } from '../../application/operations/operate.js';
import { Remediate } from '../../application/remediation/remediate.js';
import type { ChangeLedger } from '../../domain/ports/change-ledger.js';
import type { Clock, Timers } from '../../domain/ports/clock.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { ClusterWriter } from '../../domain/ports/cluster-writer.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import type { SessionStore } from '../../domain/ports/session-store.js';
import type { Tracer } from '../../domain/ports/tracer.js';
import type { Config } from '../config/config.js';
import type { GitDelivery } from '../gitops/git-delivery.js';
import { YamlManifestEditor } from '../gitops/yaml-manifest-editor.js';

/** What the AI tools (remediate, operate) and the verdict after an execution are built from. */
export interface AiToolsDeps {
  config: Config;
  llm: LlmProvider;
  reader: ClusterReader;
  writer: ClusterWriter;
  sessions: SessionStore;
  tracer: Tracer;
  clock: Clock & Timers;
  /** The one guarded-write pipeline (the write scope and every stored policy). */
  guard: GuardedWrite;
  /** The policies shown to the model as context. */
  policies: PolicySource;
  /** The ledger's recorder, revert and port. */
  recorder: ChangeRecorder;
  revert: RevertChange;
  ledger: ChangeLedger;
  /** The GitOps delivery a fix may go through instead of the cluster. */
  git: GitDelivery;
  /** Where a verdict that comes after the answer runs (the runs module binds it). */
  followUps?: FollowUpRuns;
}

/** What the AI tools module gives the rest of the composition. */
export interface AiToolsExports {
  /** The verdict after every execution (remediate, operate, deployManifests) and the revert of a degraded one. */
  verify: VerifyExecution;
  operate: Operate;
  remediate: Remediate;
}

/** remediate and operate over the given ports, and the verdict they and deployManifests share. Touches no container. */
export function registerAiTools(deps: AiToolsDeps): AiToolsExports {
  const { config } = deps;
  // the revert of a degraded execution goes through the ledger's revert
  const verify = new VerifyExecution(deps.reader, deps.clock, config.ai.verify, deps.revert, deps.ledger, deps.followUps, deps.recorder);
  const aiTools: AiToolDeps = {
    llm: deps.llm,
    reader: deps.reader,
    writer: deps.writer,
    sessions: deps.sessions,
    tracer: deps.tracer,
    clock: deps.clock,
    limits: { timeoutMs: config.ai.timeoutMs, maxTokens: config.ai.maxTokens },
    guard: deps.guard,
    policies: deps.policies,
    recorder: deps.recorder,
    approval: config.auth,
    verify,
  };
  const deliverFix = new DeliverFix(deps.git.ports, new YamlManifestEditor(), deps.git.settings);
  const rollout = { intervalMs: config.ai.rolloutPollMs };
  return { verify, operate: new Operate({ ...aiTools, rollout }, deliverFix), remediate: new Remediate({ ...aiTools, rollout }, deliverFix) };
}
