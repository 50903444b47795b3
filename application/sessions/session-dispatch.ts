import { ValidationError } from '../../domain/errors.js';
import type { ApprovalPolicy } from '../../domain/auth/session-owner.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { SessionStore } from '../../domain/ports/session-store.js';
import { approve, refine, type Approval, type ApprovalSessionState, type PlanUnderApproval } from '../../domain/sessions/approval-session.js';
import type { Session, SessionKind } from '../../domain/sessions/session.js';
import { unknownSession } from '../../domain/sessions/session-id.js';
import type { OnFailure } from '../actions/verify-execution.js';
import type { Delivery } from '../gitops/gitops-gate.js';
import type { ToolContext } from '../tool-handler.js';
import { actorIn, requireSessionRead } from './session-access.js';
import { stopApprovalSession } from './stop-session.js';

/** What an approval-session tool (remediate, operate) accepts: the fields the dispatcher reads; the rest is the start's. */
export interface SessionToolInput {
  sessionId?: string;
  executeChoice?: number;
  planDigest?: string;
  delivery?: Delivery;
  onFailure?: OnFailure;
  refinedIntent?: string;
  evidence?: string;
  mode?: string;
}

/** One call of an approval-session tool, parsed: which of the five steps it asks for. */
export type SessionCall<I> =
  | { step: 'start'; input: I }
  | { step: 'view'; sessionId: string }
  | { step: 'execute'; sessionId: string; planDigest?: string; delivery?: Delivery; onFailure?: OnFailure }
  | { step: 'stop'; sessionId: string }
  | { step: 'refine'; sessionId: string; refinedIntent: string; evidence?: string };

export type SessionStep = SessionCall<unknown>['step'];

/** How a tool's input reads: what starts a session and what only a start takes. */
export interface SessionGrammar {
  tool: 'remediate' | 'operate';
  /** The field that starts a session (required without a sessionId). */
  startField: 'issue' | 'intent';
  /** What a session is called in the answers: an investigation, an operation. */
  noun: string;
  /** Whether the tool plans again within a session (`refinedIntent`). */
  refines: boolean;
  /** Fields that only a start takes: sent with a sessionId they are refused with `startOnlyMessage`. */
  startOnly: readonly string[];
  startOnlyMessage: (fields: readonly string[]) => string;
  /** Whether `onFailure` may come with a start in mode automatic. */
  automaticMode: boolean;
}

/**
 * Parses a remediate or operate call into start, view, execute, stop or
 * refine, refusing (400, before any I/O) a field the step does not take.
 * The order of the checks is the answer's: the first problem found is the one named.
 */
export function parseSessionCall<I extends SessionToolInput>(input: I, g: SessionGrammar): SessionCall<I> {
  if (input.delivery !== undefined && input.executeChoice !== 1) throw new ValidationError('delivery goes with executeChoice 1 (and a sessionId)');
  if (input.onFailure !== undefined && input.executeChoice !== 1 && !(g.automaticMode && input.mode === 'automatic'))
    throw new ValidationError(`onFailure goes with executeChoice 1 (and a sessionId)${g.automaticMode ? ', or with mode automatic when starting' : ''}`);
  const fields = input as unknown as Record<string, unknown>;
  if (input.sessionId === undefined) {
    const continuing = (g.refines ? ['refinedIntent', 'executeChoice'] : ['executeChoice']) as (keyof SessionToolInput)[];
    if (continuing.some((f) => input[f] !== undefined)) {
      const one = continuing.length === 1;
      throw new ValidationError(
        `${continuing.join(' and ')} continue${one ? 's' : ''} an ${g.noun}: send ${one ? 'it' : 'them'} with the sessionId an earlier ${g.tool} call returned`,
      );
    }
    if (fields[g.startField] === undefined) throw new ValidationError(`${g.startField} is required to start an ${g.noun} (or send sessionId to continue one)`);
    return { step: 'start', input };
  }
  const sessionId = input.sessionId;
  const misplaced = g.startOnly.filter((f) => fields[f] !== undefined);
  // a tool that refines names a misplaced start first (send refinedIntent instead); the others after the planDigest
  if (g.refines) {
    if (misplaced.length) throw new ValidationError(g.startOnlyMessage(misplaced));
    if (input.refinedIntent !== undefined && input.executeChoice !== undefined)
      throw new ValidationError('Send either refinedIntent or executeChoice, not both');
  }
  if (input.planDigest !== undefined && input.executeChoice !== 1) throw new ValidationError('planDigest goes with executeChoice 1 (and a sessionId)');
  if (!g.refines && misplaced.length) throw new ValidationError(g.startOnlyMessage(misplaced));
  if (g.refines && input.refinedIntent !== undefined)
    return { step: 'refine', sessionId, refinedIntent: input.refinedIntent, ...(input.evidence !== undefined ? { evidence: input.evidence } : {}) };
  if (input.executeChoice === 1)
    return {
      step: 'execute',
      sessionId,
      ...(input.planDigest !== undefined ? { planDigest: input.planDigest } : {}),
      ...(input.delivery !== undefined ? { delivery: input.delivery } : {}),
      ...(input.onFailure !== undefined ? { onFailure: input.onFailure } : {}),
    };
  if (input.executeChoice === 2) return { step: 'stop', sessionId };
  return { step: 'view', sessionId };
}

/** What a tool gives the dispatcher: its store and rules, and the I/O of each step. */
export interface ApprovalSessionTool<I, S extends ApprovalSessionState, V> {
  kind: SessionKind;
  /** How to begin anew, for the refusals (`Start a new operation with operate and an intent.`). */
  start: string;
  sessions: SessionStore;
  clock: Clock;
  approval: ApprovalPolicy | undefined;
  /** Refuses (before the session is read) a step this server cannot take, e.g. no cluster configured. */
  requireFor(step: Exclude<SessionStep, 'start'>): void;
  /** The plan an approval is about. */
  planOf(state: S): PlanUnderApproval;
  view(session: Session<S>): V;
  begin(input: I, context: ToolContext | undefined): Promise<V>;
  execute(session: Session<S>, approval: Approval, call: Extract<SessionCall<I>, { step: 'execute' }>, context: ToolContext | undefined): Promise<V>;
  /** Plans again; `replan` (the aggregate's) gives the new state with its owner kept. Absent: the tool does not refine. */
  refine?(
    session: Session<S>,
    call: Extract<SessionCall<I>, { step: 'refine' }>,
    replan: (next: Omit<S, 'owner' | 'execution' | 'stopped'>) => S,
    context: ToolContext | undefined,
  ): Promise<V>;
}

/**
 * Runs one parsed call of an approval-session tool: start is the tool's;
 * every other step reads the session (unknown: 400 naming how to start),
 * asks the aggregate (domain/sessions/approval-session.ts) whether the caller
 * may take it in the session's phase, then hands the I/O to the tool. Stop is
 * the one stopApprovalSession of every session tool, so stopping twice
 * answers the same everywhere.
 */
export async function dispatchSessionCall<I, S extends ApprovalSessionState, V>(
  tool: ApprovalSessionTool<I, S, V>,
  call: SessionCall<I>,
  context: ToolContext | undefined,
): Promise<V> {
  if (call.step === 'start') return tool.begin(call.input, context);
  tool.requireFor(call.step);
  const session = await tool.sessions.get<S>(tool.kind, call.sessionId);
  if (!session) throw unknownSession(tool.kind, call.sessionId, tool.start);
  const by = actorIn(context, tool.approval);
  switch (call.step) {
    case 'view':
      requireSessionRead(session, tool.approval, context);
      return tool.view(session);
    case 'stop':
      return tool.view(await stopApprovalSession(tool.sessions, tool.kind, session, by, new Date(tool.clock.now()), tool.start));
    case 'execute': {
      const approved = approve(session.id, session.state, { ...by, plan: tool.planOf(session.state), sentDigest: call.planDigest }, tool.start);
      if ('refused' in approved) throw approved.refused.error;
      return tool.execute(session, approved.approval, call, context);
    }
    case 'refine': {
      if (!tool.refine) throw new ValidationError(`${tool.kind} sessions are not refined`);
      const allowed = refine(session.id, session.state, by, tool.start);
      if ('refused' in allowed) throw allowed.refused.error;
      return tool.refine(session, call, allowed.replan, context);
    }
  }
}
