import { Body, Controller, Get, Path, Post, Query, Request, Route, Tags } from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import { inject, injectable } from 'tsyringe';
import type { GetChange, LinkedChangeView } from '../../../application/ledger/get-change.js';
import type { ChangeList, ListChanges } from '../../../application/ledger/list-changes.js';
import type { VerifiedLedger, VerifyLedger } from '../../../application/ledger/verify-ledger.js';
import type { RevertChange, RevertPreview, RevertResult } from '../../../application/ledger/revert-change.js';
import { TOKENS } from '../../../infrastructure/tokens.js';
import { callerOf, ok, type SuccessEnvelope } from '../envelope.js';

export interface RevertRequest {
  /** Revert the recorded fields even though the object changed since the change (default false). */
  force?: boolean;
  /** Answer the undo as svc's write guard previews it (dry run, diff, risk, refusals) with its planDigest; nothing is written (default false). */
  preview?: boolean;
  /**
   * The planDigest of the preview you reviewed: the revert is refused (409 CONFLICT) when the undo would now differ. Required of a second
   * approver, and to revert a revert (which re-applies a change).
   * @pattern ^sha256:[0-9a-f]{64}$
   */
  planDigest?: string;
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
   * The ledger of changes svc made to clusters, newest first; an intent (a write about to be sent) is listed only while it has no outcome entry. Every filter
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
   * @param cluster Cluster the change was made in (a name of SVC_CLUSTERS)
   * @param outcome applied, refused (the API server refused it), failed, unknown (recovery could not tell), pending (the open intents: writes with no outcome recorded yet) or judged (verdict entries)
   * @param type change, revert, intent (the open ones: a closed intent is never listed) or verdict (svc's verdict on a change, reached after the tool answered; its `verdictOf` names the change)
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
    @Query() type?: string,
    @Query() limit?: number,
    @Query() cursor?: string,
    @Query() cluster?: string,
  ): Promise<SuccessEnvelope<ChangeList>> {
    const query = { since, until, caller, namespace, kind, name, tool, sessionId, outcome, type, limit, cursor, cluster };
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
   * as an anchor. `openIntents` (absent when none) counts and names the
   * intents with no outcome entry yet: writes in flight, or whose answer svc
   * never recorded and that recovery has not closed yet. With SVC_LEDGER_KEY
   * the head and the anchor must carry their seals (HMACs under the key): a
   * head rewritten to match entries removed from the newest end, or an
   * anchor rewritten with the oldest, makes `ok` false naming which;
   * `previousKey` counts entries sealed with SVC_LEDGER_KEY_PREVIOUS. Without
   * a key, `warning` says what the check cannot find.
   */
  @Get('integrity')
  public async integrity(@Request() req: ExpressRequest): Promise<SuccessEnvelope<VerifiedLedger>> {
    return ok(req, await this.verifyLedger.execute(callerOf(req.res!)));
  }

  /**
   * One ledger entry; `revertedBy` names the revert entry that undid it, when one did (that entry's `revertOf` names this one), and `laterVerdict` the newest `verdict` entry on it (svc's verdict reached after the tool answered; that entry's `verdictOf` names this one). Unknown (or removed by retention): 404 NOT_FOUND.
   * @param id The entry's id, `chg_<seq>_<8 hex>`
   */
  @Get('{id}')
  public async get(@Request() req: ExpressRequest, @Path() id: string): Promise<SuccessEnvelope<LinkedChangeView>> {
    return ok(req, await this.getChange.execute(id, callerOf(req.res!)));
  }

  /**
   * Undoes one change, through svc's write guard like any write. Re-reads
   * the object; when its resourceVersion is still the one recorded after the
   * change, dry-runs the inverse change, judges it (the allow-lists
   * SVC_WRITE_KINDS and SVC_WRITE_NAMESPACES by the kind discovery serves,
   * SVC_IMAGE_REGISTRIES, every stored policy, svc's risk of the undo),
   * applies it, records a `revert` entry pointing at the original (with
   * that risk), and answers both. `preview: true` answers the undo as
   * judged (`preview`: method, risk, riskReasons, diff) and its `planDigest`,
   * writing nothing; a `planDigest` sent that is not the undo's now is 409
   * CONFLICT. A created object is deleted, a deleted one re-created from the
   * recorded state. 400 VALIDATION_ERROR when svc refuses the undo
   * (`details.reason`: OutsideWriteScope, InvalidTarget, ImageRegistry,
   * PolicyViolation, PoliciesUnreadable), and for the revert of a revert
   * sent without the planDigest of its preview. 409 CONFLICT when the object
   * changed since (`details.diff`: the recorded state against the live one;
   * `force: true` reverts the recorded fields anyway, still dry-run first),
   * when it was already reverted, when the entry was a refused change, or
   * when the API server refuses the undo. Operators revert their own
   * changes, admins any (403 FORBIDDEN otherwise); with
   * SVC_REQUIRE_SECOND_APPROVER a high-risk undo (or one in a protected
   * namespace) is for another person than the change's author (403 for the
   * author), who sends the planDigest of its preview (400 without).
   * @param id The entry's id, `chg_<seq>_<8 hex>`
   */
  @Post('{id}/revert')
  public async revert(
    @Request() req: ExpressRequest,
    @Path() id: string,
    @Body() body?: RevertRequest,
  ): Promise<SuccessEnvelope<RevertResult | RevertPreview>> {
    const input = { id, force: body?.force, planDigest: body?.planDigest };
    const caller = callerOf(req.res!);
    return ok(req, body?.preview ? await this.revertChange.preview(input, caller) : await this.revertChange.execute(input, caller));
  }
}
