import type { Caller, Role } from '../domain/auth/caller.js';
import { leastRoleForTool, requireRole, roleForToolCall } from '../domain/auth/tool-access.js';
import { CancelledError, DomainError, ERROR_CODES, ExecutionError, ValidationError } from '../domain/errors.js';
import { issueLines } from '../domain/validation/zod-issues.js';
import type { Clock } from '../domain/ports/clock.js';
import type { Logger } from '../domain/ports/logger.js';
import { NO_METRICS, type Metrics } from '../domain/ports/metrics.js';
import type { Tracer } from '../domain/ports/tracer.js';
import type { ToolRegistry } from '../domain/tools/tool-registry.js';
import type { ToolContext, ToolHandlers } from './tool-handler.js';
import { withinRun, type RunScope } from './runs/run-scope.js';
import { actingFor } from './cluster/acting-caller.js';
import { scrubInScope, withinSecretScope } from './security/secret-scope.js';
import { newTally, withinTally, type ToolTally } from './tool-tally.js';
import { withinCluster } from './cluster/current-cluster.js';
import { callerInCluster, chooseCluster, clusterRefusal, type ClusterProfile } from '../domain/fleet/cluster-profile.js';

/** Which cluster a call is for (SVC_CLUSTERS): the ClusterFleet, or nothing when svc serves its one cluster as always. */
export interface ClusterChoice {
  /** The profile of the cluster the call is for, or undefined for a call for no one cluster; ValidationError naming the choices. */
  choose(tool: string, params: Readonly<Record<string, unknown>>): ClusterProfile | undefined;
  /** The role a caller needs for `tool` before its cluster is known (leastRoleBeforeCluster); absent: the tool's least role. */
  leastRole?(tool: string): Role;
}

/**
 * Without SVC_CLUSTERS: svc's one cluster, as always. A call may name it
 * (its context) and runs exactly as one that does not, in no cluster scope;
 * any other name is a ValidationError naming the one there is.
 */
export function singleCluster(context: string): ClusterChoice {
  return {
    choose: (tool, params) => {
      // a call across clusters on one cluster would silently be a call on that one
      for (const field of ['clusterSelector', 'waves', 'waveOrder'])
        if (params[field] !== undefined)
          throw new ValidationError(`${field} works across a fleet of clusters: set SVC_CLUSTERS (svc serves one cluster now)`, [
            { field, message: 'needs SVC_CLUSTERS' },
          ]);
      if (params.cluster !== undefined) chooseCluster(context ? [context] : [], params.cluster, tool);
      return undefined;
    },
  };
}

export interface ExecuteToolInput {
  toolName: string;
  params: unknown;
  requestId: string;
  /** Who asked, as the interface authenticated them. */
  caller: Caller;
  /** `X-Svc-Git-Token`, for a tool that pushes to git; handed to the tool only, never to a span or a log. */
  gitToken?: string;
  /** Set for a run (`Prefer: respond-async`, MCP progress): its cancel signal and where its progress goes. */
  run?: RunScope;
}

export interface ExecuteToolOutput {
  result: unknown;
  tool: string;
  /** Milliseconds from validation to result. */
  executionTime: number;
}

/**
 * Runs one tool: look it up, validate its input before anything runs, run its
 * use case inside the `execute_tool <name>` span. Shared by REST, MCP and CLI.
 */
export class ExecuteTool {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly handlers: ToolHandlers,
    private readonly tracer: Tracer,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** Check every result against the tool's output schema (tests turn it on, so every scenario holds the schemas true). */
    private readonly verifyOutputs = false,
    /** Tool runs by tool and outcome, role refusals. */
    private readonly metrics: Metrics = NO_METRICS,
    /** The fleet (SVC_CLUSTERS): each call runs in its cluster's scope, with that cluster's rules and roles. */
    private readonly fleet?: ClusterChoice,
  ) {}

  async execute(input: ExecuteToolInput): Promise<ExecuteToolOutput> {
    const params = authorisedInput(this.registry, input.caller, input.toolName, input.params, this.metrics, this.fleet);
    // chosen (and checked) before any I/O: the call runs in its cluster's scope, as the caller that cluster sees
    const profile = this.fleet?.choose(input.toolName, params);
    // the tool's use case never sees `cluster`: the scope carries it
    const { cluster: _chosen, ...rest } = params;
    if (profile) {
      const caller = callerInCluster(profile, input.caller);
      return withinCluster(profile.name, () => this.executeIn({ ...input, caller }, rest, profile.name));
    }
    return this.executeIn(input, rest);
  }

  private async executeIn(input: ExecuteToolInput, params: Record<string, unknown>, cluster?: string): Promise<ExecuteToolOutput> {
    const started = this.clock.now();
    const sessionId = typeof params.sessionId === 'string' ? params.sessionId : undefined;
    const inputJson = JSON.stringify(params);
    const tally = newTally();
    const ledgerIds: string[] = [];
    let outcome = 'success';
    try {
      const result = await withinTally(tally, () => this.traced(input, params, started, sessionId, inputJson, ledgerIds, cluster));
      return { result, tool: input.toolName, executionTime: this.clock.now() - started };
    } catch (err) {
      outcome = err instanceof CancelledError ? 'cancelled' : err instanceof DomainError ? err.code : 'error';
      throw err;
    } finally {
      this.logRun(input, sessionId, outcome, started, tally, ledgerIds, cluster);
    }
  }

  /**
   * The one info line of a tool run: which tool, for whom (the identity's
   * kind, issuer and subject), on which session, how it ended, how long it
   * took, its model calls and tokens, its cluster writes and ledger entries.
   */
  private logRun(
    input: ExecuteToolInput,
    sessionId: string | undefined,
    outcome: string,
    started: number,
    tally: ToolTally,
    ledgerIds: string[],
    cluster?: string,
  ): void {
    const { kind, issuer, subject } = identityParts(input.caller.id);
    this.logger.info('tool run', {
      tool: input.toolName,
      outcome,
      durationMs: this.clock.now() - started,
      caller: { kind: input.caller.kind ?? kind, issuer, subject, username: input.caller.username },
      ...(sessionId ? { sessionId } : {}),
      ...(cluster !== undefined ? { cluster } : {}),
      requestId: input.requestId,
      ...(input.run?.runId ? { runId: input.run.runId } : {}),
      modelCalls: tally.modelCalls,
      tokens: { input: tally.inputTokens, output: tally.outputTokens },
      clusterWrites: tally.clusterWrites,
      ...(ledgerIds.length ? { ledgerIds: [...ledgerIds] } : {}),
    });
  }

  private traced(
    input: ExecuteToolInput,
    params: Record<string, unknown>,
    started: number,
    sessionId: string | undefined,
    inputJson: string,
    ledgerIds: string[],
    cluster?: string,
  ) {
    return this.tracer.inSpan(
      `execute_tool ${input.toolName}`,
      {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': input.toolName,
        'gen_ai.tool.input': inputJson,
        'svc.tool.parameters': Object.keys(params),
        'svc.session.id': sessionId,
        'svc.request.id': input.requestId,
        'enduser.id': input.caller.username,
        'enduser.role': input.caller.roles.join(','),
        'svc.enduser.token_kind': input.caller.kind,
        ...(cluster !== undefined ? { 'svc.cluster': cluster } : {}),
      },
      async (span) => {
        // the changes this run made, also when it failed after making some
        const changes = () => (ledgerIds.length ? { 'svc.ledger.ids': [...ledgerIds] } : {});
        try {
          const context: ToolContext = { requestId: input.requestId, sessionId, caller: input.caller, gitToken: input.gitToken, ledgerIds, ...input.run };
          const run = input.run;
          // one Secret scope per call: every Secret value it read or wrote is scrubbed from its answer (and its sessions, ledger entries, model text)
          const work = () => withinSecretScope(async () => scrubInScope(await this.run(input.toolName, params, context)));
          const value = run ? await withinRun(run, work) : await work();
          // a tool may wind down to an answer after a cancel (a loop stopped as at its deadline): a cancelled run has none
          if (run?.signal.aborted) throw new CancelledError();
          span.setAttributes({ 'svc.tool.success': true, 'svc.tool.duration_ms': this.clock.now() - started, ...changes() });
          this.metrics.toolRun(input.toolName, 'success');
          if (cluster !== undefined) this.metrics.clusterToolRun?.(cluster, input.toolName, 'success');
          return value;
        } catch (err) {
          span.setAttributes({ 'svc.tool.success': false, 'svc.tool.duration_ms': this.clock.now() - started, ...changes() });
          this.metrics.toolRun(input.toolName, err instanceof CancelledError ? 'cancelled' : 'error');
          if (cluster !== undefined) this.metrics.clusterToolRun?.(cluster, input.toolName, err instanceof CancelledError ? 'cancelled' : 'error');
          throw err;
        }
      },
    );
  }

  private async run(name: string, params: Record<string, unknown>, context: ToolContext) {
    const handler = this.handlers.get(name);
    if (!handler) {
      throw new ExecutionError(`Tool ${name} is defined but not available in this version of svc: its use case has not been built yet`);
    }
    try {
      // validated against the schema of the same name just above; every cluster request it makes is made for its caller
      const result = await actingFor(context.caller, () => handler.execute(params as never, context));
      if (this.verifyOutputs) this.verifyOutput(name, result);
      return result;
    } catch (err) {
      if (err instanceof DomainError) throw err;
      // An unexpected failure: log it whole, show the caller a safe message.
      this.logger.error('tool failed', { tool: name, requestId: context.requestId, err: err instanceof Error ? err.stack : String(err) });
      throw new ExecutionError(`Tool ${name} failed unexpectedly; see the server log for request ${context.requestId}`);
    }
  }

  private verifyOutput(name: string, result: unknown): void {
    const parsed = this.registry.get(name).outputSchema.safeParse(result);
    if (!parsed.success) {
      const issues = issueLines(parsed.error).slice(0, 5).join('; ');
      throw new Error(`result of ${name} does not match its output schema: ${issues}`);
    }
  }
}

/** An identity id (`kind:issuer:subject`, the subject's `%` and `:` percent-encoded) as its parts. */
function identityParts(id: string): { kind: string; issuer: string; subject: string } {
  const first = id.indexOf(':');
  const last = id.lastIndexOf(':');
  if (first < 0 || last <= first) return { kind: '', issuer: '', subject: id };
  const subject = id.slice(last + 1);
  let decoded = subject;
  try {
    decoded = decodeURIComponent(subject);
  } catch {
    // kept as stored
  }
  return { kind: id.slice(0, first), issuer: id.slice(first + 1, last), subject: decoded };
}

/**
 * The input of a call the caller may make, validated: roles first (an
 * unknown tool is 404 for anyone), then the input, then the role this very
 * call needs (403 FORBIDDEN naming it). Shared by a run's start, so a call
 * refused synchronously is refused before a run exists too. A role refusal
 * is counted in `metrics`.
 */
export function authorisedInput(
  registry: ToolRegistry,
  caller: Caller,
  toolName: string,
  raw: unknown,
  metrics: Metrics = NO_METRICS,
  fleet?: ClusterChoice,
): Record<string, unknown> {
  registry.get(toolName);
  try {
    requireRole(caller, fleet?.leastRole?.(toolName) ?? leastRoleForTool(toolName), toolName);
    const params = registry.validate(toolName, raw);
    // the cluster is chosen from the input alone, its rules and its roles checked before any I/O
    const profile = fleet?.choose(toolName, params);
    const { cluster: _cluster, ...call } = params;
    const refusal = profile && clusterRefusal(profile, toolName, call);
    if (refusal) throw refusal;
    const who = profile ? callerInCluster(profile, caller) : caller;
    requireRole(who, roleForToolCall(toolName, call), describeCall(toolName, call) + (profile ? ` in cluster ${profile.name}` : ''));
    return params;
  } catch (err) {
    // a refusal for the caller's role (counted once, as the gate counts its own)
    if (err instanceof DomainError && err.code === ERROR_CODES.FORBIDDEN) metrics.refusal('role');
    throw err;
  }
}

/** The call as a refusal names it: the tool, and for manageOrgData the operation. */
function describeCall(tool: string, params: Record<string, unknown>): string {
  return typeof params.operation === 'string' ? `${tool} ${params.operation}` : tool;
}
