import { Controller, Get, Path, Query, Request, Route, Tags } from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import { inject, injectable } from 'tsyringe';
import type { GetSession } from '../../../application/sessions/get-session.js';
import type { ListSessions } from '../../../application/sessions/list-sessions.js';
import type { SessionDetail, SessionSummary } from '../../../application/sessions/session-summary.js';
import { TOKENS } from '../../../infrastructure/tokens.js';
import { callerOf, ok, type SuccessEnvelope } from '../envelope.js';

export interface SessionListData {
  sessions: SessionSummary[];
  /** Pass as `cursor` for the next page; absent on the last one. */
  nextCursor?: string;
}

/**
 * The sessions of the multi-step tools: remediations (remediate), operations
 * (operate) and solutions (recommend through deployManifests). A caller sees
 * the sessions they started; an admin sees everyone's.
 */
@injectable()
@Route('api/v1/sessions')
@Tags('Sessions')
export class SessionsController extends Controller {
  constructor(
    @inject(TOKENS.ListSessions) private readonly listSessions: ListSessions,
    @inject(TOKENS.GetSession) private readonly getSession: GetSession,
  ) {
    super();
  }

  /**
   * The caller's sessions (an admin's: everyone's), newest first, each with
   * its status and next step. A page may hold fewer sessions than `limit` and
   * still carry a `nextCursor` (a page looks at most 1000 sessions): follow it
   * until it is absent.
   * @param tool remediate, operate or recommend (solutions)
   * @param status Only sessions in this status (for example awaiting_approval, executed, deployed)
   * @param limit Sessions per page, 1 to 100 (default 20)
   * @isInt limit
   * @param cursor The `nextCursor` of the page before, unchanged
   */
  @Get()
  public async list(
    @Request() req: ExpressRequest,
    @Query() tool?: string,
    @Query() status?: string,
    @Query() limit?: number,
    @Query() cursor?: string,
  ): Promise<SuccessEnvelope<SessionListData>> {
    return ok(req, await this.listSessions.execute({ caller: callerOf(req.res!), tool, status, limit, cursor }));
  }

  /**
   * One session: its summary and `view`, what its tool answers about it
   * (remediate or operate called with the sessionId alone; for a solution, its
   * state). 404 for an unknown or expired id; 403 naming the owner for someone
   * else's session unless the caller is an admin.
   */
  @Get('{sessionId}')
  public async get(@Request() req: ExpressRequest, @Path() sessionId: string): Promise<SuccessEnvelope<SessionDetail>> {
    return ok(req, await this.getSession.execute(sessionId, callerOf(req.res!)));
  }
}
