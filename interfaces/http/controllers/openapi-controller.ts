import { Controller, Get, Route, Tags } from '@tsoa/runtime';
import { inject, injectable } from 'tsyringe';
import type { ToolRegistry } from '../../../domain/tools/tool-registry.js';
import { TOKENS } from '../../../infrastructure/tokens.js';
import { openApiDocumentOf } from '../openapi-document.js';

@injectable()
@Route('api/v1/openapi')
@Tags('Documentation')
export class OpenApiController extends Controller {
  constructor(@inject(TOKENS.ToolRegistry) private readonly registry: ToolRegistry) {
    super();
  }

  /** The OpenAPI 3.0 document of this server, generated from its current tool set. Unauthenticated; no envelope. */
  @Get()
  public async document(): Promise<{ [key: string]: unknown }> {
    return openApiDocumentOf(this.registry);
  }
}
