import type { InjectionToken } from 'tsyringe';
import type { CheckReadiness } from '../application/check-readiness.js';
import type { ExecuteTool } from '../application/execute-tool.js';
import type { IngestSource } from '../application/ingest-source.js';
import type { IngestedPromptSource } from '../application/ingested-prompt-source.js';
import type { ListTools } from '../application/list-tools.js';
import type { GetChange } from '../application/ledger/get-change.js';
import type { ListChanges } from '../application/ledger/list-changes.js';
import type { ListClusters } from '../application/cluster/list-clusters.js';
import type { VerifyLedger } from '../application/ledger/verify-ledger.js';
import type { RevertChange } from '../application/ledger/revert-change.js';
import type { ListPrompts } from '../application/prompts/list-prompts.js';
import type { PromptSourceResolver } from '../application/prompts/prompt-source-resolver.js';
import type { RefreshPrompts } from '../application/prompts/refresh-prompts.js';
import type { RenderPrompt } from '../application/prompts/render-prompt.js';
import type { CancelRun } from '../application/runs/cancel-run.js';
import type { GetRun } from '../application/runs/get-run.js';
import type { ListRuns } from '../application/runs/list-runs.js';
import type { GetSession } from '../application/sessions/get-session.js';
import type { ListSessions } from '../application/sessions/list-sessions.js';
import type { StartRun } from '../application/runs/start-run.js';
import type { RunStore } from '../domain/ports/run-store.js';
import type { ClusterReader } from '../domain/ports/cluster-reader.js';
import type { Embedder } from '../domain/ports/embedder.js';
import type { IngestedSourceStore } from '../domain/ports/ingested-source-store.js';
import type { LlmProvider } from '../domain/ports/llm-provider.js';
import type { SessionStore } from '../domain/ports/session-store.js';
import type { Tracer } from '../domain/ports/tracer.js';
import type { VectorStore } from '../domain/ports/vector-store.js';
import type { ToolRegistry } from '../domain/tools/tool-registry.js';

/**
 * A symbol that carries the type registered under it: `c.resolve(TOKENS.X)`
 * infers X's type, and `c.register(TOKENS.X, { useValue })` refuses a value
 * of another type, so a wrong port does not compile.
 */
function token<T>(name: string): InjectionToken<T> {
  return Symbol(name);
}

/** DI tokens: one per port or use case registered at the composition root. */
export const TOKENS = {
  Tracer: token<Tracer>('Tracer'),
  VectorStore: token<VectorStore>('VectorStore'),
  Embedder: token<Embedder>('Embedder'),
  LlmProvider: token<LlmProvider>('LlmProvider'),
  ClusterReader: token<ClusterReader>('ClusterReader'),
  SessionStore: token<SessionStore>('SessionStore'),
  ListSessions: token<ListSessions>('ListSessions'),
  GetSession: token<GetSession>('GetSession'),
  /** Closers run on graceful shutdown, after in-flight requests drained. */
  OnShutdown: token<Array<() => Promise<void>>>('OnShutdown'),
  ToolRegistry: token<ToolRegistry>('ToolRegistry'),
  ExecuteTool: token<ExecuteTool>('ExecuteTool'),
  ListTools: token<ListTools>('ListTools'),
  IngestedSourceStore: token<IngestedSourceStore>('IngestedSourceStore'),
  IngestSource: token<IngestSource>('IngestSource'),
  IngestedPromptSource: token<IngestedPromptSource>('IngestedPromptSource'),
  CheckReadiness: token<CheckReadiness>('CheckReadiness'),
  PromptSourceResolver: token<PromptSourceResolver>('PromptSourceResolver'),
  ListPrompts: token<ListPrompts>('ListPrompts'),
  RenderPrompt: token<RenderPrompt>('RenderPrompt'),
  RefreshPrompts: token<RefreshPrompts>('RefreshPrompts'),
  RunStore: token<RunStore>('RunStore'),
  StartRun: token<StartRun>('StartRun'),
  GetRun: token<GetRun>('GetRun'),
  ListRuns: token<ListRuns>('ListRuns'),
  CancelRun: token<CancelRun>('CancelRun'),
  ListChanges: token<ListChanges>('ListChanges'),
  ListClusters: token<ListClusters>('ListClusters'),
  GetChange: token<GetChange>('GetChange'),
  VerifyLedger: token<VerifyLedger>('VerifyLedger'),
  RevertChange: token<RevertChange>('RevertChange'),
} as const;
