import { AnswerQuestion } from '../application/deployment/answer-question.js';
import { ChooseSolution } from '../application/deployment/choose-solution.js';
import { CleanUpDeploy } from '../application/deployment/clean-up-deploy.js';
import { DeployManifests } from '../application/deployment/deploy-manifests.js';
import { GenerateManifests } from '../application/deployment/generate-manifests.js';
import { Recommend } from '../application/deployment/recommend.js';
import { SolutionSessions } from '../application/deployment/solution-sessions.js';
import type { TypedToolHandlers } from '../application/tool-handler.js';
import { DeployOrDeliver } from '../application/deployment/deploy-or-deliver.js';
import type { Config } from './config/config.js';
import { DeliverToGit } from '../application/deployment/deliver-to-git.js';
import type { GitDelivery } from './gitops/git-delivery.js';
import type { VerifyExecution } from '../application/actions/verify-execution.js';
import type { ChangeRecorder } from '../application/ledger/change-recorder.js';
import type { RevertChange } from '../application/ledger/revert-change.js';
import type { NamedPolicy } from '../domain/orgdata/policy-constraint.js';
import type { GuardedWrite } from '../application/guarded-write/guarded-write.js';
import type { Clock, Timers } from '../domain/ports/clock.js';
import type { ClusterReader } from '../domain/ports/cluster-reader.js';
import type { ClusterWriter } from '../domain/ports/cluster-writer.js';
import type { Embedder } from '../domain/ports/embedder.js';
import type { LlmProvider } from '../domain/ports/llm-provider.js';
import type { Metrics } from '../domain/ports/metrics.js';
import type { SessionStore } from '../domain/ports/session-store.js';
import type { VectorStore } from '../domain/ports/vector-store.js';

type DeploymentTools = 'recommend' | 'chooseSolution' | 'answerQuestion' | 'generateManifests' | 'deployManifests';

/** What the deployment workflow's tools are built from. */
export interface DeploymentDeps {
  config: Config;
  git: GitDelivery;
  /** The verdict after a deploy (and the revert of a degraded one). */
  verify: VerifyExecution;
  sessions: SessionStore;
  reader: ClusterReader;
  writer: ClusterWriter;
  llm: LlmProvider;
  clock: Clock & Timers;
  embedder: Embedder;
  vectorStore: VectorStore;
  /** The ledger's recorder every write goes through, and its revert (cleanup after a failed deploy). */
  recorder: ChangeRecorder;
  revert: RevertChange;
  /** The one guarded-write pipeline every deployed object goes through (the write scope and every stored policy). */
  guard: GuardedWrite;
  metrics: Metrics;
  /** Which stored policies apply in the current work's cluster (a policy limited to other clusters is not shown to recommend). */
  policyApplies?: (policy: NamedPolicy) => boolean;
}

/** The five tools of the deployment workflow, built from the ports given. Touches no container. */
export function deploymentHandlers(deps: DeploymentDeps): Pick<TypedToolHandlers, DeploymentTools> {
  const { config, reader, writer, llm, clock, git } = deps;
  const ai = config.ai;
  const sessions = new SolutionSessions(deps.sessions, config.auth);
  const limits = { maxTokens: ai.maxTokens, timeoutMs: ai.timeoutMs };
  return {
    recommend: new Recommend(llm, deps.embedder, deps.vectorStore, reader, sessions, limits, deps.policyApplies),
    chooseSolution: new ChooseSolution(reader, sessions),
    answerQuestion: new AnswerQuestion(reader, sessions),
    generateManifests: new GenerateManifests(llm, reader, writer, sessions, clock, limits),
    deployManifests: new DeployOrDeliver(
      new DeployManifests({ guard: deps.guard, reader, sessions, clock, recorder: deps.recorder, metrics: deps.metrics, verify: deps.verify }),
      new DeliverToGit(git.ports, sessions, git.settings),
      new CleanUpDeploy(sessions, deps.revert, clock),
    ),
  };
}
