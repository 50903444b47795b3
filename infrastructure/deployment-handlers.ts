import type { DependencyContainer } from 'tsyringe';
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
import { TOKENS } from './tokens.js';

type DeploymentTools = 'recommend' | 'chooseSolution' | 'answerQuestion' | 'generateManifests' | 'deployManifests';

/** The five tools of the deployment workflow, built from the ports registered in `c`. */
export function deploymentHandlers(
  c: DependencyContainer,
  config: Config,
  git: GitDelivery,
  verify?: VerifyExecution,
): Pick<TypedToolHandlers, DeploymentTools> {
  const ai = config.ai;
  const sessions = new SolutionSessions(c.resolve(TOKENS.SessionStore), config.auth);
  const reader = c.resolve(TOKENS.ClusterReader);
  const writer = c.resolve(TOKENS.ClusterWriter);
  const llm = c.resolve(TOKENS.LlmProvider);
  const clock = c.resolve(TOKENS.Clock);
  const limits = { maxTokens: ai.maxTokens, timeoutMs: ai.timeoutMs };
  return {
    recommend: new Recommend(llm, c.resolve(TOKENS.Embedder), c.resolve(TOKENS.VectorStore), reader, sessions, limits),
    chooseSolution: new ChooseSolution(reader, sessions),
    answerQuestion: new AnswerQuestion(reader, sessions),
    generateManifests: new GenerateManifests(llm, reader, writer, sessions, clock, limits),
    deployManifests: new DeployOrDeliver(
      new DeployManifests(
        reader,
        writer,
        sessions,
        clock,
        1000,
        config.writes,
        c.resolve(TOKENS.ChangeRecorder),
        c.resolve(TOKENS.PolicySource),
        c.resolve(TOKENS.Metrics),
        verify,
      ),
      new DeliverToGit(git.ports, sessions, git.settings),
      new CleanUpDeploy(sessions, c.resolve(TOKENS.RevertChange), clock),
    ),
  };
}
