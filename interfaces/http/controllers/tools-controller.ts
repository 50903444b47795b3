import { Body, Controller, Get, Header, Hidden, Path, Post, Query, Request, Route, Tags } from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import { inject, injectable } from 'tsyringe';
import type { ExecuteTool } from '../../../application/execute-tool.js';
import type { ListTools } from '../../../application/list-tools.js';
import type { StartRun } from '../../../application/runs/start-run.js';
import type { RunStatus } from '../../../domain/runs/run.js';
import { honoursAsync } from '../../../domain/runs/run.js';
import { prefersAsync, runLinks } from '../prefer-async.js';
import { TOKENS } from '../../../infrastructure/tokens.js';
import { catalogFilters } from '../catalog-query.js';
import { callerOf, ok, requestIdOf, type SuccessEnvelope } from '../envelope.js';
import { toCatalogEntry, type ToolCatalogEntry } from '../tool-catalog-entry.js';

export interface ToolListData {
  tools: ToolCatalogEntry[];
}

/** `data` of a 202 answer to `Prefer: respond-async`: the run to poll, stream or cancel. */
export interface RunStartData {
  runId: string;
  tool: string;
  /** The cluster the run works in (SVC_CLUSTERS); absent when svc serves one cluster. */
  cluster?: string;
  status: RunStatus;
  links: { self: string; events: string };
}

export interface ToolExecutionData {
  /** The tool's own result; its shape is published per tool in this document. */
  result: unknown;
  tool: string;
  /** Milliseconds */
  executionTime: number;
}

@injectable()
@Route('api/v1/tools')
@Tags('Tools')
export class ToolsController extends Controller {
  constructor(
    @inject(TOKENS.ListTools) private readonly listTools: ListTools,
    @inject(TOKENS.ExecuteTool) private readonly executeTool: ExecuteTool,
    @inject(TOKENS.StartRun) private readonly startRun: StartRun,
  ) {
    super();
  }

  /**
   * The tool catalog. Filters combine: a tool is listed when it matches all of them.
   * @param category Exact category name (AI Tools, Deployment, Management, System, Troubleshooting, Documentation)
   * @param tag A tag; comma-separated tags match any of them
   * @param tags Same as tag (accepted spelling)
   * @param search Case-insensitive text matched against tool names and descriptions
   */
  @Get()
  public async list(
    @Request() req: ExpressRequest,
    @Query() category?: string,
    @Query() tag?: string,
    @Query() tags?: string,
    @Query() search?: string,
  ): Promise<SuccessEnvelope<ToolListData>> {
    const tools = await this.listTools.execute(catalogFilters(category, tag, tags, search));
    return ok(req, { tools: tools.map(toCatalogEntry) });
  }

  /**
   * Runs a tool. The body is the tool's own parameters (see the per-tool paths).
   * @param gitToken Credential for the repository deployManifests pushes to with `gitops`, sent only to its host
   * With `Prefer: respond-async`, a tool whose run can be long answers 202 at
   * once with the run (`Location: /api/v1/runs/{runId}`); others ignore it.
   */
  @Hidden()
  @Post('{toolName}')
  public async execute(
    @Request() req: ExpressRequest,
    @Path() toolName: string,
    @Body() body?: any, // eslint-disable-line @typescript-eslint/no-explicit-any -- each tool validates its own schema
    @Header('X-Svc-Git-Token') gitToken?: string,
    @Header('prefer') prefer?: string,
  ): Promise<SuccessEnvelope<ToolExecutionData | RunStartData>> {
    const input = { toolName, params: body ?? {}, requestId: requestIdOf(req.res!), caller: callerOf(req.res!), gitToken };
    if (prefersAsync(prefer) && honoursAsync(toolName, input.params)) {
      // the git token travels with the run in this replica's memory only, never in its record
      const run = await this.startRun.execute(input);
      this.setStatus(202);
      this.setHeader('Location', runLinks(run.runId).self);
      this.setHeader('Preference-Applied', 'respond-async');
      return ok(req, { runId: run.runId, tool: run.tool, ...(run.cluster ? { cluster: run.cluster } : {}), status: run.status, links: runLinks(run.runId) });
    }
    const out = await this.executeTool.execute(input);
    return ok(req, out);
  }
}
