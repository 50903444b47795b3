import { Controller, Delete, Get, Path, Query, Request, Route, Tags } from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import { inject, injectable } from 'tsyringe';
import type { CancelRun } from '../../../application/runs/cancel-run.js';
import type { GetRun } from '../../../application/runs/get-run.js';
import type { ListRuns } from '../../../application/runs/list-runs.js';
import type { RunSummary, RunView } from '../../../domain/runs/run.js';
import { TOKENS } from '../../../infrastructure/tokens.js';
import { callerOf, ok, type SuccessEnvelope } from '../envelope.js';

export interface RunListData {
  runs: RunSummary[];
  /** Pass as `cursor` for the next page; absent on the last one. */
  nextCursor?: string;
}

/**
 * Runs started with `Prefer: respond-async` on `POST /api/v1/tools/{toolName}`.
 * A caller sees their own runs; an admin sees everyone's. The live event
 * stream of a run is `GET /api/v1/runs/{runId}/events` (text/event-stream).
 */
@injectable()
@Route('api/v1/runs')
@Tags('Runs')
export class RunsController extends Controller {
  constructor(
    @inject(TOKENS.ListRuns) private readonly listRuns: ListRuns,
    @inject(TOKENS.GetRun) private readonly getRun: GetRun,
    @inject(TOKENS.CancelRun) private readonly cancelRun: CancelRun,
  ) {
    super();
  }

  /**
   * The caller's runs (an admin's: everyone's), newest first.
   * @param tool Only runs of this tool
   * @param cluster Only runs in this cluster (a name of SVC_CLUSTERS)
   * @param status queued, running, succeeded, failed or cancelled
   * @param limit Runs per page, 1 to 100 (default 20)
   * @isInt limit
   * @param cursor `nextCursor` of the previous page
   */
  @Get()
  public async list(
    @Request() req: ExpressRequest,
    @Query() tool?: string,
    @Query() status?: string,
    @Query() cluster?: string,
    @Query() limit?: number,
    @Query() cursor?: string,
  ): Promise<SuccessEnvelope<RunListData>> {
    return ok(req, await this.listRuns.execute({ caller: callerOf(req.res!), tool, status, cluster, limit, cursor }));
  }

  /**
   * One run: its status, progress events so far, and once it has ended its
   * `result` (exactly the `data` the synchronous call would have answered) or `error`.
   */
  @Get('{runId}')
  public async get(@Request() req: ExpressRequest, @Path() runId: string): Promise<SuccessEnvelope<RunView>> {
    return ok(req, await this.getRun.execute(runId, callerOf(req.res!)));
  }

  /**
   * Cancels a queued or running run: the model request in flight is aborted,
   * no further function call or cluster write starts; answers once the run has
   * ended `cancelled` (within about 2 s), saying what had been done. 409 for a run that has already ended.
   */
  @Delete('{runId}')
  public async cancel(@Request() req: ExpressRequest, @Path() runId: string): Promise<SuccessEnvelope<RunView>> {
    return ok(req, await this.cancelRun.execute(runId, callerOf(req.res!)));
  }
}
