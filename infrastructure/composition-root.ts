import { GetSession } from '../application/sessions/get-session.js';
import { ListSessions } from '../application/sessions/list-sessions.js';
import 'reflect-metadata';
import { container as rootContainer, type DependencyContainer, type InjectionToken } from 'tsyringe';
import { CheckModel } from '../application/check-model.js';
import { CheckReadiness } from '../application/check-readiness.js';
import { ExecuteTool, singleCluster } from '../application/execute-tool.js';
import { GetSystemStatus, type RuntimeInfo } from '../application/get-system-status.js';
import { IngestSource } from '../application/ingest-source.js';
import { IngestedPromptSource } from '../application/ingested-prompt-source.js';
import { ListTools } from '../application/list-tools.js';
import { OrgPolicySource } from '../application/actions/policy-source.js';
import { GuardedWrite } from '../application/guarded-write/guarded-write.js';
import type { ToolHandler } from '../application/tool-handler.js';
import type { ClusterClient, ImpersonatingClusterClients } from '../domain/ports/cluster-client.js';
import { actingUserForSpans, callerAwareCluster } from '../application/cluster/caller-aware-cluster.js';
import { readOnlyView } from '../domain/ports/cluster-reader.js';
import type { ScanStateStore } from '../domain/ports/scan-state-store.js';
import type { SessionStore } from '../domain/ports/session-store.js';
import { noteObjectRead, scrubbingLlm, scrubbingSessionStore } from '../application/security/secret-scope.js';
import { observeObjectsRead } from './kubernetes/kube-object-view.js';
import type { RunStore } from '../domain/ports/run-store.js';
import { runAwareLlm, runAwareWriter } from '../application/runs/run-aware-ports.js';
import { registerRuns } from './runs/register-runs.js';
import { FollowUpRunsLink } from '../application/runs/follow-up-runs.js';
import type { ChangeLedger } from '../domain/ports/change-ledger.js';
import type { Clock, Timers } from '../domain/ports/clock.js';
import type { Embedder } from '../domain/ports/embedder.js';
import type { IngestedSourceStore } from '../domain/ports/ingested-source-store.js';
import type { GitFetcher } from '../domain/ports/git-fetcher.js';
import type { LlmProvider } from '../domain/ports/llm-provider.js';
import type { Logger } from '../domain/ports/logger.js';
import type { Tracer } from '../domain/ports/tracer.js';
import type { VectorStore } from '../domain/ports/vector-store.js';
import type { Authenticator } from '../domain/ports/authenticator.js';
import type { Metrics } from '../domain/ports/metrics.js';
import type { RateLimiter } from '../domain/ports/rate-limiter.js';
import type { ListPrompts } from '../application/prompts/list-prompts.js';
import type { PromptSourceResolver } from '../application/prompts/prompt-source-resolver.js';
import type { RevertChange } from '../application/ledger/revert-change.js';
import type { RenderPrompt } from '../application/prompts/render-prompt.js';
import type { WatchRun } from '../application/runs/watch-run.js';
import type { LedgerRetention } from '../application/ledger/ledger-retention.js';
import type { RecoverIntents } from '../application/ledger/recover-intents.js';
import type { MetricsExposition } from './metrics/prometheus-metrics.js';
import { TOOL_DEFINITIONS } from '../domain/tools/tool-definitions.js';
import type { ToolDefinition } from '../domain/tools/tool-definition.js';
import { ToolRegistry } from '../domain/tools/tool-registry.js';
import type { Config } from './config/config.js';
import { SystemClock } from './clock/system-clock.js';
import { createSharedState } from './redis/shared-state.js';
import { configSecrets } from './config/config-secrets.js';
import { deploymentHandlers } from './deployment-handlers.js';
import { createGitDelivery } from './gitops/git-delivery.js';
import { createLazyClusterClient, createMemberClusterClient } from './kubernetes/create-cluster-client.js';
import { fleetCluster, type FleetMember } from '../application/cluster/fleet-cluster.js';
import { ClusterFleet } from '../application/cluster/cluster-fleet.js';
import { ListClusters } from '../application/cluster/list-clusters.js';
import { clusterBoundSessions } from '../application/cluster/cluster-sessions.js';
import { clusterStampedLedger } from '../application/cluster/cluster-ledger.js';
import { currentCluster } from '../application/cluster/current-cluster.js';
import { FleetOperate } from '../application/operations/fleet-rollout.js';
import { FleetRemediate } from '../application/remediation/fleet-investigation.js';
import type { WriteScope } from '../domain/actions/write-scope.js';
import type { Caller } from '../domain/auth/caller.js';
import { callerInCluster, type ClusterProfile } from '../domain/fleet/cluster-profile.js';
import { ForbiddenError } from '../domain/errors.js';
import { createLlmProvider } from './llm/create-llm-provider.js';
import { PinoLogger } from './logging/pino-logger.js';
import { createAuthenticator } from './auth/create-authenticator.js';
import { registerOrgData, type ScanBackground } from './orgdata/register-org-data.js';
import { registerPrompts } from './prompts/register-prompts.js';
import { registerLedger } from './ledger/register-ledger.js';
import { registerAiTools } from './ai/register-ai-tools.js';
import { registerTools } from './tools/register-tools.js';
import { TOKENS } from './tokens.js';
import { createTracer } from './tracing/create-tracer.js';
import { tracePorts } from './tracing/trace-ports.js';
import { meteredCluster, meteredLedger, meteredLlm } from './metrics/metered-ports.js';
import { PrometheusMetrics } from './metrics/prometheus-metrics.js';
import { SERVICE_VERSION } from './service-version.js';
import { createEmbedder, createVectorStore } from './vector/vector-adapters.js';

/** Adapters a caller (a test, a bench) may put in place of the configured ones. */
export interface Overrides {
  logger?: Logger;
  clock?: Clock & Timers;
  tracer?: Tracer;
  vectorStore?: VectorStore;
  embedder?: Embedder;
  llm?: LlmProvider;
  /** With SVC_KUBE_IMPERSONATE on, it must also implement ImpersonatingClusterClients. */
  cluster?: ClusterClient & Partial<ImpersonatingClusterClients>;
  /** With SVC_CLUSTERS: a fleet member's client by cluster name, in place of the one its context would build. */
  clusters?: Record<string, ClusterClient & Partial<ImpersonatingClusterClients>>;
  sessions?: SessionStore;
  /** Runs started with `Prefer: respond-async`. */
  runs?: RunStore;
  /** The change ledger (default: a file under SVC_DATA_DIR/ledger, or Redis with REDIS_URL). */
  ledger?: ChangeLedger;
  /** Progress and lease of the capability scan. */
  scanStates?: ScanStateStore;
  toolDefinitions?: readonly ToolDefinition[];
  /** Extra or replacement tool use cases, by tool name. */
  toolHandlers?: Record<string, ToolHandler>;
  ingestedSources?: IngestedSourceStore;
  /** The git transport of the prompt library. */
  gitFetcher?: GitFetcher;
  /** Check every tool result against its output schema (tests). */
  verifyToolOutputs?: boolean;
}

/**
 * The composition root: one child container per app, built from a validated
 * config. Every adapter is chosen here and nowhere else.
 */
export function buildContainer(config: Config, overrides: Overrides = {}): DependencyContainer {
  const c = rootContainer.createChildContainer();
  const value = <T>(token: InjectionToken<T>, v: T) => c.register<T>(token, { useValue: v });

  const logger = overrides.logger ?? PinoLogger.create(config.server.logLevel);
  const clock = overrides.clock ?? new SystemClock();
  // Started before any adapter or the app: the http/undici instrumentations must be in place first.
  const tracer = overrides.tracer ?? createTracer(config.tracing, { logger, serviceVersion: SERVICE_VERSION, secrets: configSecrets(config) });
  value(TOKENS.Tracer, tracer);
  // with a fleet, the per-cluster counters carry `cluster` (names from SVC_CLUSTERS: bounded)
  const metrics = new PrometheusMetrics({ fleet: !!config.cluster.fleet });
  // SVC_CLUSTERS: one client per cluster (built on first use), behind one port that routes each call to the current work's cluster
  const members = fleetMembers(config, overrides, logger);
  // Model calls and cluster writes are counted at the adapter, whoever makes them.
  const adapters = {
    vectorStore: overrides.vectorStore ?? createVectorStore(config.vector, logger),
    embedder: overrides.embedder ?? createEmbedder(config.vector),
    llm: meteredLlm(overrides.llm ?? createLlmProvider(config.llm), metrics, logger),
    cluster: meteredCluster(
      members ? fleetCluster(members) : actingCluster(!!config.cluster.impersonate, overrides.cluster ?? createLazyClusterClient(config.cluster), logger),
      metrics,
    ),
  };
  // Tools see the ports through their span decorators (when tracing is on)...
  const ports = tracePorts(
    adapters,
    tracer,
    overrides.vectorStore ? undefined : config.vector.store.kind,
    config.cluster.impersonate ? actingUserForSpans : undefined,
  );
  value(TOKENS.VectorStore, ports.vectorStore);
  value(TOKENS.Embedder, ports.embedder);
  // ...and through the run-aware views: inside a run, progress events and a cancel that stops the next call or write
  const llm = runAwareLlm(scrubbingLlm(ports.llm));
  value(TOKENS.LlmProvider, llm);
  // the adapter hands what it reads to the per-call Secret scope, before it redacts Secret values
  observeObjectsRead(noteObjectRead);
  // One adapter, two ports: the reader view cannot reach a write method, even through a cast.
  const reader = readOnlyView(ports.cluster);
  const writer = runAwareWriter(ports.cluster);
  value(TOKENS.ClusterReader, reader);
  const fleet = members
    ? new ClusterFleet(
        members.map((m) => m.profile),
        reader,
      )
    : undefined;
  value(TOKENS.ListClusters, new ListClusters(fleet, reader));
  // with a fleet, a policy limited to some clusters holds the current work only in those
  const policyCluster = fleet ? () => fleetProfileOfWork(fleet) : undefined;
  const policies = new OrgPolicySource(ports.vectorStore, ports.embedder, policyCluster);
  const shared = createSharedState(config, clock, logger, tracer);
  const sessionStore = overrides.sessions ?? shared.sessions;
  // with a fleet, a session belongs to the cluster it was made in
  const sessions = scrubbingSessionStore(fleet ? clusterBoundSessions(sessionStore) : sessionStore, readOnlyView(ports.cluster));
  value(TOKENS.SessionStore, sessions);
  value(TOKENS.ListSessions, new ListSessions(sessions));
  value(TOKENS.GetSession, new GetSession(sessions, config.auth));
  const auth = createAuthenticator(config, logger);
  const onShutdown = [shared.close, async () => auth?.stop()];
  value(TOKENS.OnShutdown, onShutdown);
  // the one guarded-write pipeline: every write of remediate, operate, deployManifests and a revert goes through it
  const guard = new GuardedWrite({
    reader,
    writer,
    scope: config.writes,
    policies,
    ...(fleet ? { clusterScope: () => clusterWriteScope(fleet, config) } : {}),
  });
  const ledger = registerLedger({
    config,
    // with a fleet, each entry carries (and seals) the cluster it was made in
    ledger: ((l: ChangeLedger) => (fleet ? clusterStampedLedger(l) : l))(meteredLedger(overrides.ledger ?? shared.ledger, metrics)),
    store: overrides.ledger ? 'custom' : shared.ledgerStore,
    tracer,
    reader,
    writer,
    clock,
    logger,
    guard,
    metrics,
    ...(fleet ? { inCluster: (name: string, caller: Caller) => revertCallerIn(fleet, name, caller) } : {}),
  });
  // the changes controller's use cases (the evaluation harness takes the port and the revert from AppParts)
  value(TOKENS.ListChanges, ledger.listChanges);
  value(TOKENS.GetChange, ledger.getChange);
  value(TOKENS.VerifyLedger, ledger.verifyLedger);
  value(TOKENS.RevertChange, ledger.revert);
  const { recorder } = ledger;
  // ...readiness checks do not: a probe every few seconds would be a trace of its own each time.
  const readiness = new CheckReadiness(adapters.vectorStore, adapters.embedder, clock, logger, {
    sharedState: shared.sharedState,
    warnings: shared.warnings,
    ...(fleet ? { clusters: async () => (await fleet.summaries()).map(({ name, reachable }) => ({ name, reachable })) } : {}),
  });
  value(TOKENS.CheckReadiness, readiness);
  const runtime: RuntimeInfo = {
    version: SERVICE_VERSION,
    nodeVersion: process.version,
    platform: process.platform,
    arch: process.arch,
  };
  // GitOps: the delivery a fix or a deploy may go through instead of the cluster
  const git = createGitDelivery(config, logger, tracer, recorder);
  // a verdict that comes after the answer runs as a follow-up run of this replica's executor (bound below)
  const followUps = new FollowUpRunsLink();
  const ai = registerAiTools({
    followUps,
    config,
    llm,
    reader,
    writer,
    sessions,
    tracer,
    clock,
    guard,
    policies,
    recorder,
    revert: ledger.revert,
    ledger: ledger.port,
    git,
  });
  const orgData = registerOrgData({
    config,
    vectorStore: ports.vectorStore,
    embedder: ports.embedder,
    reader,
    llm,
    clock,
    tracer,
    logger,
    scanStates: overrides.scanStates ?? shared.scanStates,
    // with a fleet, each cluster has its own capabilities and scan
    ...(fleet ? { clusters: fleet.profiles } : {}),
    ...(shared.clusterScanStates ? { clusterScanStates: shared.clusterScanStates } : {}),
  });
  const tools = registerTools({
    definitions: overrides.toolDefinitions ?? TOOL_DEFINITIONS,
    handlers: {
      version: new GetSystemStatus(
        runtime,
        ports.vectorStore,
        ports.embedder,
        llm,
        reader,
        tracer,
        readiness,
        shared.sharedState,
        new CheckModel(llm, clock),
        fleet,
      ),
      manageOrgData: orgData.manageOrgData,
      ...deploymentHandlers({
        config,
        git,
        verify: ai.verify,
        sessions,
        reader,
        writer,
        llm,
        clock,
        embedder: ports.embedder,
        vectorStore: ports.vectorStore,
        recorder,
        revert: ledger.revert,
        guard,
        metrics,
        policyApplies: policies.applies,
      }),
      // with a fleet, operate with clusterSelector is a rollout across clusters, wave by wave
      operate: fleet ? new FleetOperate(ai.operate, fleet.profiles, ledger.revert, { sessions, clock, approval: config.auth }) : ai.operate,
      // ...and remediate with clusterSelector investigates in each matching cluster
      remediate: fleet ? new FleetRemediate(ai.remediate, fleet.profiles) : ai.remediate,
    },
    extraHandlers: overrides.toolHandlers,
    tracer,
    clock,
    logger,
    metrics,
    verifyOutputs: overrides.verifyToolOutputs ?? false,
    fleet: fleet ?? singleCluster(reader.context()),
  });
  const { registry, listTools, executeTool } = tools;
  // the tools and OpenAPI controllers' use cases (the evaluation harness executes through ExecuteTool)
  value(TOKENS.ToolRegistry, registry);
  value(TOKENS.ListTools, listTools);
  value(TOKENS.ExecuteTool, executeTool);
  // Uploaded skill sources first: the prompt source resolver serves `?source=` from them.
  const sources = overrides.ingestedSources ?? shared.ingestedSources;
  value<IngestedSourceStore>(TOKENS.IngestedSourceStore, sources);
  const ingestSource = new IngestSource(sources);
  const ingested = new IngestedPromptSource(sources, logger);
  value(TOKENS.IngestSource, ingestSource);
  value(TOKENS.IngestedPromptSource, ingested);
  const prompts = registerPrompts({ config, clock, logger, tracer, ingested, gitFetcher: overrides.gitFetcher });
  // the prompts controller's use cases; tests read the resolver
  value(TOKENS.PromptSourceResolver, prompts.resolver);
  value(TOKENS.ListPrompts, prompts.listPrompts);
  value(TOKENS.RenderPrompt, prompts.renderPrompt);
  value(TOKENS.RefreshPrompts, prompts.refreshPrompts);
  const runs = registerRuns({
    config,
    store: overrides.runs ?? shared.runs,
    executeTool,
    registry,
    logger,
    metrics,
    followUps,
    fleet: fleet ?? singleCluster(reader.context()),
  });
  // the tools and runs controllers' use cases; tests and the bench read the store
  value(TOKENS.RunStore, runs.store);
  value(TOKENS.StartRun, runs.startRun);
  value(TOKENS.GetRun, runs.getRun);
  value(TOKENS.ListRuns, runs.listRuns);
  value(TOKENS.CancelRun, runs.cancelRun);
  onShutdown.unshift(...runs.onShutdown);
  BUILT.set(c, {
    background: { sharedStateReady: shared.ready, ledgerRetention: ledger.retention, recoverIntents: ledger.recoverIntents, scan: orgData.scanBackground },
    parts: {
      controllers: c,
      config,
      logger,
      tracer,
      metrics,
      metricsExposition: metrics,
      rateLimiter: shared.rateLimiter,
      authenticator: auth?.authenticator,
      onShutdown,
      tools: { registry, list: listTools, execute: executeTool },
      prompts: {
        resolver: prompts.resolver,
        ingested,
        list: prompts.listPrompts,
        render: prompts.renderPrompt,
        ingest: ingestSource,
      },
      watchRun: runs.watchRun,
      changes: { ledger: ledger.port, revert: ledger.revert },
    },
  });
  return c;
}

/**
 * What the transports are built from (the express app, the request gate in
 * front of it, the fast answers, /metrics, the run-events stream, MCP): built
 * objects, handed over, never looked up. interfaces/ resolves nothing from
 * the container; `controllers` is there only for tsoa's controller factory
 * (interfaces/http/ioc.ts), the one place that does.
 */
export interface AppParts {
  /** tsoa's controllers only (interfaces/http/ioc.ts resolves each controller class from it). */
  readonly controllers: DependencyContainer;
  readonly config: Config;
  readonly logger: Logger;
  readonly tracer: Tracer;
  readonly metrics: Metrics;
  /** What GET /metrics serves: the same registry as `metrics`, rendered. */
  readonly metricsExposition: MetricsExposition;
  readonly rateLimiter: RateLimiter;
  /** Present when identities are configured (a bearer token, a tokens file, OIDC). */
  readonly authenticator?: Authenticator;
  /** Closers a stopping server runs after its tracer flushes, in order. */
  readonly onShutdown: ReadonlyArray<() => Promise<void>>;
  readonly tools: { readonly registry: ToolRegistry; readonly list: ListTools; readonly execute: ExecuteTool };
  readonly prompts: {
    readonly resolver: PromptSourceResolver;
    readonly ingested: IngestedPromptSource;
    readonly list: ListPrompts;
    readonly render: RenderPrompt;
    readonly ingest: IngestSource;
  };
  readonly watchRun: WatchRun;
  /** The change ledger and its guarded revert (the evaluation harness undoes each case's changes through them). */
  readonly changes: { readonly ledger: ChangeLedger; readonly revert: RevertChange };
}

/** Background work a started server owns, beyond the capability scan. */
interface BackgroundWork {
  /** Resolves true once the shared store's connection is up (at once without Redis), false after `timeoutMs`. */
  readonly sharedStateReady: (timeoutMs: number) => Promise<boolean>;
  readonly ledgerRetention: LedgerRetention;
  readonly recoverIntents: RecoverIntents;
  /** Resuming a capability scan left unfinished (and, with replicas, taking over one whose replica died). */
  readonly scan: ScanBackground;
}

/** What buildContainer built for each container it made: the transports' parts and the background work. */
const BUILT = new WeakMap<DependencyContainer, { parts: AppParts; background: BackgroundWork }>();

function builtOf(c: DependencyContainer): { parts: AppParts; background: BackgroundWork } {
  const built = BUILT.get(c);
  if (!built) throw new Error('this container was not made by buildContainer');
  return built;
}

/** The transports' parts of a container buildContainer made (the objects it built, not a lookup by token). */
export function appParts(c: DependencyContainer): AppParts {
  return builtOf(c).parts;
}

/** The clusters of SVC_CLUSTERS, each client acting as the caller where its cluster impersonates; undefined without SVC_CLUSTERS. */
function fleetMembers(config: Config, overrides: Overrides, logger: Logger): FleetMember[] | undefined {
  const fleet = config.cluster.fleet;
  if (!fleet) return undefined;
  logger.info('svc serves a fleet of clusters (SVC_CLUSTERS): every cluster call names its cluster', { clusters: fleet.members.map((m) => m.profile.name) });
  return fleet.members.map(({ profile, source }) => ({
    profile,
    client: actingCluster(
      profile.impersonate ?? !!config.cluster.impersonate,
      overrides.clusters?.[profile.name] ?? createMemberClusterClient(config.cluster, source),
      logger,
    ),
  }));
}

/** The caller reverting a change of cluster `name` as that cluster sees them; a read-only cluster refuses (403) before any request. */
function revertCallerIn(fleet: ClusterFleet, name: string, caller: Caller): Caller {
  const profile = fleet.profile(name);
  if (!profile) return caller;
  if (profile.readOnly) throw new ForbiddenError(`cluster ${name} is read-only: svc sends it no write, a revert included`, { cluster: name, readOnly: true });
  return callerInCluster(profile, caller);
}

/** The profile of the cluster the current work is for; undefined for work outside any cluster's scope. */
function fleetProfileOfWork(fleet: ClusterFleet): ClusterProfile | undefined {
  const name = currentCluster();
  return name === undefined ? undefined : fleet.profile(name);
}

/** The write scope of the current work's cluster: SVC_WRITE_* with the cluster's own kinds, protected namespaces and Pod Security level. */
function clusterWriteScope(fleet: ClusterFleet, config: Config): WriteScope | undefined {
  const profile = fleetProfileOfWork(fleet);
  if (!profile) return undefined;
  return {
    ...config.writes,
    ...(profile.writeKinds ? { kinds: profile.writeKinds } : {}),
    ...(profile.podSecurityLevel ? { podSecurityLevel: profile.podSecurityLevel } : {}),
    protectedNamespaces: [...(config.writes.protectedNamespaces ?? []), ...profile.protectedNamespaces],
  };
}

/** The cluster as tools see it: with SVC_KUBE_IMPERSONATE, each request made as the caller it is made for. */
function actingCluster(impersonate: boolean, own: ClusterClient & Partial<ImpersonatingClusterClients>, logger: Logger): ClusterClient {
  if (!impersonate) return own;
  if (typeof own.actingAs !== 'function') throw new Error('SVC_KUBE_IMPERSONATE is on, but the cluster client given cannot impersonate');
  logger.info("Kubernetes requests made for a caller impersonate them (SVC_KUBE_IMPERSONATE); work for no caller uses svc's own identity");
  return callerAwareCluster(own, own as ImpersonatingClusterClients);
}

/** How long start-up waits for the shared store's connection before it serves anyway (degraded, as when Redis goes down later). */
export const SHARED_STATE_WAIT_MS = 10_000;

/**
 * Waits (bounded) until the shared store's connection is up, so nothing
 * touches Redis before it is: a healthy start logs no error. Without Redis it
 * returns at once; a Redis still down after the wait is one warning, and svc
 * serves without it until it is back.
 */
export async function waitForSharedState(c: DependencyContainer, timeoutMs = SHARED_STATE_WAIT_MS): Promise<void> {
  const { background, parts } = builtOf(c);
  if (await background.sharedStateReady(timeoutMs)) return;
  parts.logger.warn('shared state (Redis) not connected yet; svc serves without it and keeps reconnecting', {
    waitedMs: timeoutMs,
  });
}

/** Background work a started server owns (a capability scan left unfinished, ledger retention, recovery of open ledger intents): started and stopped by the process entry point. */
export async function resumeBackgroundWork(c: DependencyContainer): Promise<void> {
  const { background } = builtOf(c);
  background.ledgerRetention.start();
  background.recoverIntents.start();
  await background.scan.resume();
}

export async function stopBackgroundWork(c: DependencyContainer): Promise<void> {
  const { background } = builtOf(c);
  await Promise.all([background.scan.stop(), background.ledgerRetention.stop(), background.recoverIntents.stop()]);
}

/** The capability scan's part of the background work alone: resumes a scan left unfinished (tests of the scan use it). */
export function resumeCapabilityScan(c: DependencyContainer): Promise<void> {
  return builtOf(c).background.scan.resume();
}

/** Stops the capability scan's background work alone (its unfinished kinds stay pending) and releases its lease. */
export function stopCapabilityScan(c: DependencyContainer): Promise<void> {
  return builtOf(c).background.scan.stop();
}
