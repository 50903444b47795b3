import { Body, Controller, Get, Path, Post, Query, Request, Route, Tags } from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import { inject, injectable } from 'tsyringe';
import type { GetChange } from '../../../application/ledger/get-change.js';
import type { ChangeList, ListChanges } from '../../../application/ledger/list-changes.js';
import type { ChangeView } from '../../../application/ledger/change-view.js';
import type { VerifyLedger } from '../../../application/ledger/verify-ledger.js';
import type { RevertChange, RevertResult } from '../../../application/ledger/revert-change.js';
import type { IntegrityReport } from '../../../domain/ledger/hash-chain.js';
import { TOKENS } from '../../../infrastructure/tokens.js';
import { callerOf, ok, type SuccessEnvelope } from '../envelope.js';

export interface RevertRequest {
  /** Revert the recorded fields even though the object changed since the change (default false). */
  force?: boolean;
}

@injectable()
@Route('api/v1/changes')
@Tags('Changes')
export class ChangesController extends Controller {
  constructor(
    @inject(TOKENS.ListChanges) private readonly listChanges: ListChanges,
    @inject(TOKENS.GetChange) private readonly getChange: GetChange,
    @inject(TOKENS.VerifyLedger) private readonly verifyLedger: VerifyLedger,
    @inject(TOKENS.RevertChange) private readonly revertChange: RevertChange,
  ) {
    super();
  }

  /**
   * The ledger of changes svc made to clusters, newest first. Every filter
   * given must match. Viewers see who changed what, where and when; the body
   * of the change, the state before it and the values of its diff only
   * operators and admins (an entry without them says `redacted: true`).
   * @param since ISO 8601 date or time; entries taken at or after it
   * @param until ISO 8601 date or time; entries taken at or before it
   * @param caller Username of who asked for the change
   * @param namespace Namespace of the changed object
   * @param kind Kind of the changed object, e.g. Deployment
   * @param name Name of the changed object
   * @param tool Tool that made the change: remediate, operate, deployManifests, or revert
   * @param sessionId Session of the tool run
   * @param outcome applied, refused (the API server refused it) or failed
   * @param limit Entries per page, 1 to 500 (default 50)
   * @param cursor The `nextCursor` of the page before, unchanged
   */
  @Get()
  public async list(
    @Request() req: ExpressRequest,
    @Query() since?: string,
    @Query() until?: string,
    @Query() caller?: string,
    @Query() namespace?: string,
    @Query() kind?: string,
    @Query() name?: string,
    @Query() tool?: string,
    @Query() sessionId?: string,
    @Query() outcome?: string,
    @Query() limit?: number,
    @Query() cursor?: string,
  ): Promise<SuccessEnvelope<ChangeList>> {
    const query = { since, until, caller, namespace, kind, name, tool, sessionId, outcome, limit, cursor };
    return ok(req, await this.listChanges.execute(query, callerOf(req.res!)));
  }

  /**
   * Walks the whole hash chain as stored: each entry must hash to its `hash`
   * (an HMAC under SVC_LEDGER_KEY for a keyed entry), follow the entry
   * before it and sit at the next position, and the chain must end at the
   * head svc keeps apart from it. An entry edited, removed or moved, the
   * newest entries removed, or a line cut short by a crash, makes `ok` false
   * and says what (naming the first broken entry when there is one). `head`
   * (seq and hash of the last entry svc appended) is what to keep elsewhere
   * as an anchor.
   */
  @Get('integrity')
  public async integrity(@Request() req: ExpressRequest): Promise<SuccessEnvelope<IntegrityReport>> {
    return ok(req, await this.verifyLedger.execute(callerOf(req.res!)));
  }

  /**
   * One ledger entry. Unknown (or removed by retention): 404 NOT_FOUND.
   * @param id The entry's id, `chg_<seq>_<8 hex>`
   */
  @Get('{id}')
  public async get(@Request() req: ExpressRequest, @Path() id: string): Promise<SuccessEnvelope<ChangeView>> {
    return ok(req, await this.getChange.execute(id, callerOf(req.res!)));
  }

  /**
   * Undoes one change. Re-reads the object; when its resourceVersion is still
   * the one recorded after the change, dry-runs the inverse change, applies
   * it, records a `revert` entry pointing at the original, and answers both.
   * A created object is deleted, a deleted one re-created from the recorded
   * state. 409 CONFLICT when the object changed since (`details.diff`: the
   * recorded state against the live one; `force: true` reverts the recorded
   * fields anyway, still dry-run first), when it was already reverted, when
   * the entry was a refused change, or when the API server refuses the undo.
   * Operators revert their own changes, admins any (403 FORBIDDEN otherwise).
   * @param id The entry's id, `chg_<seq>_<8 hex>`
   */
  @Post('{id}/revert')
  public async revert(@Request() req: ExpressRequest, @Path() id: string, @Body() body?: RevertRequest): Promise<SuccessEnvelope<RevertResult>> {
    return ok(req, await this.revertChange.execute({ id, force: body?.force }, callerOf(req.res!)));
  }
}
