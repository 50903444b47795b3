import { Body, Controller, Get, Header, Path, Post, Query, Request, Route, Tags } from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import { inject, injectable } from 'tsyringe';
import type { ListPrompts } from '../../../application/prompts/list-prompts.js';
import type { RefreshPrompts } from '../../../application/prompts/refresh-prompts.js';
import type { RenderPrompt } from '../../../application/prompts/render-prompt.js';
import { TOKENS } from '../../../infrastructure/tokens.js';
import { ok, type SuccessEnvelope } from '../envelope.js';

export interface PromptArgumentEntry {
  name: string;
  description: string;
  required: boolean;
}

export interface PromptEntry {
  name: string;
  description: string;
  /** Present when the prompt declares arguments. */
  arguments?: PromptArgumentEntry[];
}

export interface PromptListData {
  prompts: PromptEntry[];
  /** The repository URL with credentials scrubbed, or `built-in`. */
  source: string;
}

export interface PromptMessageContent {
  /** For example `text`. */
  type: string;
  text: string;
}

export interface PromptMessage {
  role: string;
  content: PromptMessageContent;
}

/** A file of a skill folder. */
export interface PromptFileEntry {
  /** Relative to the skill folder. */
  path: string;
  /** Base64. */
  content: string;
  /** Octal permission bits, such as `0644`. */
  mode: string;
}

export interface RenderedPromptData {
  description: string;
  messages: PromptMessage[];
  /** The other files of a skill folder. */
  files?: PromptFileEntry[];
  source: string;
}

export interface RefreshPromptsData {
  /** false when the host rules withheld the credential; the cached copy keeps being served. */
  refreshed: boolean;
  promptsLoaded: number;
  source: string;
}

export interface RefreshPromptsRequest {
  /** http(s) URL of a git repository; overrides the configured one for this request. */
  repo?: string;
  /** Folder inside the repository (default: its root). */
  path?: string;
  /** Branch (default: main). */
  branch?: string;
}

export interface RenderPromptRequest {
  /** Values for the `{{name}}` placeholders the prompt declares. */
  arguments?: { [name: string]: unknown };
}

@injectable()
@Route('api/v1/prompts')
@Tags('Prompts')
export class PromptsController extends Controller {
  constructor(
    @inject(TOKENS.ListPrompts) private readonly listPrompts: ListPrompts,
    @inject(TOKENS.RenderPrompt) private readonly renderPrompt: RenderPrompt,
    @inject(TOKENS.RefreshPrompts) private readonly refreshPrompts: RefreshPrompts,
  ) {
    super();
  }

  /**
   * Every prompt's metadata. Without `repo` the configured repository is used,
   * and without one the built-in prompts.
   * @param repo http(s) URL of a git repository to read prompts from instead of the configured one
   * @param path Folder inside `repo` (default: its root); applies only with `repo`
   * @param branch Branch of `repo` (default: main); applies only with `repo`
   * @param gitToken Credential for cloning `repo`, sent only to its host
   * @param source Identifier of a skill source uploaded with POST /api/v1/prompts/sources (URL-encoded); takes precedence over `repo`, never fetched
   */
  @Get()
  public async list(
    @Request() req: ExpressRequest,
    @Query() repo?: string,
    @Query() path?: string,
    @Query() branch?: string,
    @Header('X-Svc-Git-Token') gitToken?: string,
    @Query() source?: string,
  ): Promise<SuccessEnvelope<PromptListData>> {
    return ok(req, await this.listPrompts.execute({ repo, path, branch, gitToken, source }));
  }

  /**
   * Reloads the prompts now, whatever the cache TTL. `repo`, `path` and
   * `branch` travel in the body.
   * @param gitToken Credential for cloning `repo`, sent only to its host
   */
  @Post('refresh')
  public async refresh(
    @Request() req: ExpressRequest,
    @Body() body?: RefreshPromptsRequest,
    @Header('X-Svc-Git-Token') gitToken?: string,
  ): Promise<SuccessEnvelope<RefreshPromptsData>> {
    return ok(req, await this.refreshPrompts.execute({ repo: body?.repo, path: body?.path, branch: body?.branch, gitToken }));
  }

  /**
   * Renders one prompt with its arguments substituted. A missing required
   * argument is a 400 naming it; an unknown prompt is 404 PROMPT_NOT_FOUND.
   * @param promptName Name of the prompt
   * @param repo http(s) URL of a git repository to read prompts from instead of the configured one
   * @param path Folder inside `repo` (default: its root); applies only with `repo`
   * @param branch Branch of `repo` (default: main); applies only with `repo`
   * @param gitToken Credential for cloning `repo`, sent only to its host
   * @param source Identifier of a skill source uploaded with POST /api/v1/prompts/sources (URL-encoded); takes precedence over `repo`, never fetched
   */
  @Post('{promptName}')
  public async render(
    @Request() req: ExpressRequest,
    @Path() promptName: string,
    @Body() body?: RenderPromptRequest,
    @Query() repo?: string,
    @Query() path?: string,
    @Query() branch?: string,
    @Header('X-Svc-Git-Token') gitToken?: string,
    @Query() source?: string,
  ): Promise<SuccessEnvelope<RenderedPromptData>> {
    const out = await this.renderPrompt.execute({ name: promptName, arguments: body?.arguments, repo, path, branch, gitToken, source });
    return ok(req, out);
  }
}
