import type { Caller } from '../domain/auth/caller.js';
import type { ToolInput, ToolName } from '../domain/tools/tool-definitions.js';
import type { ProgressSink } from './runs/run-scope.js';

/** What every tool run knows about its caller. */
export interface ToolContext {
  requestId: string;
  /** Session id of a multi-step tool, when the input carries one. */
  sessionId?: string;
  /** Who asked: what sessions, ledger entries and runs are scoped by. */
  caller: Caller;
  /** Ledger ids of the changes this run made, in order: the writes push them, the tool span carries them. */
  ledgerIds?: string[];
  /** The request's `X-Svc-Git-Token`: a credential for the repository a tool pushes to, never stored, logged or traced. */
  gitToken?: string;
  /** A run started with `Prefer: respond-async`: aborts on its cancel. The shared AI parts also read it from the run scope. */
  signal?: AbortSignal;
  /** A run's progress events (the shared parts report through the run scope). */
  progress?: ProgressSink;
  /** A run started with `Prefer: respond-async`: background work of the tool is the run's (RunScope.respondAsync). */
  respondAsync?: boolean;
}

/** The use case behind one tool: takes input already validated against the tool's schema. */
export interface ToolHandler<I = Record<string, unknown>> {
  execute(input: I, context: ToolContext): Promise<unknown>;
}

/** Every tool's handler, each typed from its tool's zod schema: a tool defined in TOOL_INPUTS without a handler does not compile. */
export type TypedToolHandlers = { [N in ToolName]: ToolHandler<ToolInput<N>> };

/** Tool name -> its use case, as ExecuteTool looks them up (the input was validated against the same name's schema). */
export type ToolHandlers = ReadonlyMap<string, ToolHandler<never>>;

/** The lookup table from the typed record. */
export function handlerTable(handlers: TypedToolHandlers, extra: Record<string, ToolHandler> = {}): ToolHandlers {
  return new Map<string, ToolHandler<never>>(
    [...Object.entries(handlers), ...Object.entries(extra)].filter((e): e is [string, ToolHandler<never>] => e[1] !== undefined),
  );
}
