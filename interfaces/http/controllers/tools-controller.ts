import { Body, Controller, Get, Header, Hidden, Path, Post, Query, Request, Route, Tags } from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import { inject, injectable } from 'tsyringe';
import type { ExecuteTool } from '../../../application/execute-tool.js';
import type { ListTools } from '../../../application/list-tools.js';
import { TOKENS } from '../../../infrastructure/tokens.js';
import { catalogFilters } from '../catalog-query.js';
import { callerOf, ok, requestIdOf, type SuccessEnvelope } from '../envelope.js';
import { toCatalogEntry, type ToolCatalogEntry } from '../tool-catalog-entry.js';

export interface ToolListData {
  tools: ToolCatalogEntry[];
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
   */
  @Hidden()
  @Post('{toolName}')
  public async execute(
    @Request() req: ExpressRequest,
    @Path() toolName: string,
    @Body() body?: any, // eslint-disable-line @typescript-eslint/no-explicit-any -- each tool validates its own schema
    @Header('X-Svc-Git-Token') gitToken?: string,
  ): Promise<SuccessEnvelope<ToolExecutionData>> {
    const out = await this.executeTool.execute({ toolName, params: body ?? {}, requestId: requestIdOf(req.res!), caller: callerOf(req.res!), gitToken });
    return ok(req, out);
  }
}
