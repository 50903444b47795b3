import { expect } from 'chai';
import { NO_POLICIES } from '../../application/actions/policy-source.js';
import { AI_TOOL_SAFETY_DEPS, type AiToolDeps } from '../../application/ai/ai-tool-deps.js';
import { VerifyExecution } from '../../application/actions/verify-execution.js';
import { DeployManifests } from '../../application/deployment/deploy-manifests.js';
import { SolutionSessions } from '../../application/deployment/solution-sessions.js';
import { ChangeRecorder } from '../../application/ledger/change-recorder.js';
import { RevertChange } from '../../application/ledger/revert-change.js';
import { ExecuteOperation } from '../../application/operations/execute-operation.js';
import { Operate } from '../../application/operations/operate.js';
import { Remediate } from '../../application/remediation/remediate.js';
import { MissingDependencyError } from '../../application/required-deps.js';
import { NO_SECOND_APPROVER } from '../../domain/auth/session-owner.js';
import { NO_METRICS } from '../../domain/ports/metrics.js';
import { registerAiTools, type AiToolsDeps } from '../../infrastructure/ai/register-ai-tools.js';
import { loadConfig } from '../../infrastructure/config/config.js';
import { deploymentHandlers, type DeploymentDeps } from '../../infrastructure/deployment-handlers.js';
import { createGitDelivery } from '../../infrastructure/gitops/git-delivery.js';
import { registerLedger, type LedgerDeps } from '../../infrastructure/ledger/register-ledger.js';
import { NoopTracer } from '../../infrastructure/tracing/noop-tracer.js';
import { FakeChangeLedger } from '../fakes/fake-change-ledger.js';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { FakeLlm } from '../fakes/fake-llm.js';
import { FakeSessionStore } from '../fakes/fake-session-store.js';
import { guardOver, NO_RECORDER, NO_VERIFY, openSafety } from '../fakes/null-safety.js';
import { deployManifestsOver } from '../support/deploy-kit.js';
import { CapturingLogger } from '../support/capturing-logger.js';
import { FakeEmbedder } from '../support/fake-embedder.js';
import { FakeVectorStore } from '../support/fake-vector-store.js';
import { InstantClock } from '../support/instant-clock.js';

/** `build` with one dependency left out must throw at construction, naming it, before anything could be written. */
function refusesWithout(owner: string, names: readonly string[], build: (left: string) => unknown): void {
  for (const left of names) {
    let thrown: unknown;
    try {
      build(left);
    } catch (e) {
      thrown = e;
    }
    expect(thrown, `${owner} without ${left}`).to.be.instanceOf(MissingDependencyError);
    expect((thrown as MissingDependencyError).message).to.match(new RegExp(`^\\w+ was built without its ${left}`));
  }
}

const without = <T extends object>(deps: T, left: string): T => ({ ...deps, [left]: undefined });

describe('safety dependencies cannot be left out: a wiring mistake fails at construction, never skips the ledger', () => {
  const clock = new InstantClock();
  const cluster = new FakeCluster();
  const ai = (): AiToolDeps => ({
    llm: new FakeLlm(),
    reader: cluster,
    writer: cluster,
    sessions: new FakeSessionStore({ clock }),
    tracer: new NoopTracer(),
    clock,
    limits: { timeoutMs: 1000, maxTokens: 1000 },
    ...openSafety(cluster),
  });

  it('remediate and operate: the guarded-write pipeline, policies, recorder, approval rule and verify', () => {
    expect(() => new Remediate(ai())).to.not.throw();
    refusesWithout('Remediate', AI_TOOL_SAFETY_DEPS, (left) => new Remediate(without(ai(), left)));
    refusesWithout('Operate', AI_TOOL_SAFETY_DEPS, (left) => new Operate(without({ ...ai(), limits: { timeoutMs: 1000, maxTokens: 1000 } }, left)));
    refusesWithout('ExecuteOperation', ['guard', 'verify'], (left) => new ExecuteOperation(without(ai(), left)));
  });

  it('deployManifests, the revert, the verdict, the pipeline and the approval rule of solutions', () => {
    const kit = { cluster, store: new FakeSessionStore({ clock }), clock };
    expect(() => deployManifestsOver(kit)).to.not.throw();
    const deploy = {
      guard: guardOver(cluster),
      reader: cluster,
      sessions: new SolutionSessions(kit.store, NO_SECOND_APPROVER),
      clock,
      recorder: NO_RECORDER,
      metrics: NO_METRICS,
      verify: NO_VERIFY,
    };
    refusesWithout('DeployManifests', ['guard', 'recorder', 'metrics', 'verify'], (left) => new DeployManifests(without(deploy, left)));
    const ledger = new FakeChangeLedger(clock);
    const rules = { approval: NO_SECOND_APPROVER, metrics: NO_METRICS };
    refusesWithout('RevertChange', ['guard', 'recorder'], (left) =>
      left === 'guard'
        ? new RevertChange(ledger, undefined as never, NO_RECORDER, rules)
        : new RevertChange(ledger, guardOver(cluster), undefined as never, rules),
    );
    refusesWithout('RevertChange', ['approval', 'metrics'], (left) => new RevertChange(ledger, guardOver(cluster), NO_RECORDER, without(rules, left)));
    const revert = new RevertChange(ledger, guardOver(cluster), NO_RECORDER, rules);
    refusesWithout('VerifyExecution', ['revert', 'ledger'], (left) =>
      left === 'revert'
        ? new VerifyExecution(cluster, clock, { windowMs: 0 }, undefined as never, ledger)
        : new VerifyExecution(cluster, clock, { windowMs: 0 }, revert, undefined as never),
    );
    refusesWithout('SolutionSessions', ['approval'], () => new SolutionSessions(kit.store, undefined as never));
    expect(() => guardOver(cluster, { policies: NO_POLICIES })).to.not.throw();
  });

  it('the composition: the ledger, AI tools and deployment modules refuse to be built with a safety collaborator missing', () => {
    const config = loadConfig({ SVC_DATA_DIR: '/nonexistent-svc-test' }, '/');
    const ledgerPort = new FakeChangeLedger(clock);
    const logger = new CapturingLogger();
    const tracer = new NoopTracer();
    const guard = guardOver(cluster);
    const ledgerDeps: LedgerDeps = {
      config,
      ledger: ledgerPort,
      store: 'custom',
      tracer,
      reader: cluster,
      writer: cluster,
      clock,
      logger,
      guard,
      metrics: NO_METRICS,
    };
    const ledger = registerLedger(ledgerDeps);
    refusesWithout('registerLedger', ['guard', 'metrics'], (left) => registerLedger(without(ledgerDeps, left)));
    const recorder = new ChangeRecorder(ledgerPort, cluster);
    const aiDeps: AiToolsDeps = {
      config,
      llm: new FakeLlm(),
      reader: cluster,
      writer: cluster,
      sessions: new FakeSessionStore({ clock }),
      tracer,
      clock,
      guard,
      policies: NO_POLICIES,
      recorder,
      revert: ledger.revert,
      ledger: ledgerPort,
      git: createGitDelivery(config, logger, tracer, recorder),
    };
    const built = registerAiTools(aiDeps);
    refusesWithout('registerAiTools', ['guard', 'policies', 'recorder', 'revert', 'ledger'], (left) => registerAiTools(without(aiDeps, left)));
    const deployDeps: DeploymentDeps = {
      config,
      git: aiDeps.git,
      verify: built.verify,
      sessions: new FakeSessionStore({ clock }),
      reader: cluster,
      writer: cluster,
      llm: new FakeLlm(),
      clock,
      embedder: new FakeEmbedder(4),
      vectorStore: new FakeVectorStore(),
      recorder,
      revert: ledger.revert,
      guard,
      metrics: NO_METRICS,
    };
    expect(() => deploymentHandlers(deployDeps)).to.not.throw();
    refusesWithout('deploymentHandlers', ['verify', 'recorder', 'guard', 'metrics'], (left) => deploymentHandlers(without(deployDeps, left)));
  });
});
