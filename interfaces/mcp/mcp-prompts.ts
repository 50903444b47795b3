import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  McpError,
  type GetPromptResult,
  type Prompt as McpPrompt,
  type PromptMessage as McpPromptMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { plainMcpError } from './plain-mcp-error.js';
import type { ListPrompts } from '../../application/prompts/list-prompts.js';
import type { RenderPrompt } from '../../application/prompts/render-prompt.js';
import { DomainError, ERROR_CODES } from '../../domain/errors.js';

/** The prompts use cases REST serves: MCP reads the built-in or configured library through them. */
export interface McpPromptUseCases {
  listPrompts: ListPrompts;
  renderPrompt: RenderPrompt;
}

/** A skill file as an embedded resource: text when it is UTF-8 without NUL bytes, base64 blob otherwise. */
function fileMessage(prompt: string, file: { path: string; content: string }): McpPromptMessage {
  const bytes = Buffer.from(file.content, 'base64');
  const text = bytes.toString('utf8');
  const isText = !bytes.includes(0) && Buffer.from(text, 'utf8').equals(bytes);
  const uri = `svc-prompt://${encodeURIComponent(prompt)}/${file.path.split('/').map(encodeURIComponent).join('/')}`;
  return {
    role: 'user',
    content: { type: 'resource', resource: isText ? { uri, mimeType: 'text/plain', text } : { uri, mimeType: 'application/octet-stream', blob: file.content } },
  };
}

function toMcpError(err: unknown, requestId: string): McpError {
  if (err instanceof DomainError) {
    const code = err.code === ERROR_CODES.VALIDATION_ERROR || err.code === ERROR_CODES.PROMPT_NOT_FOUND ? ErrorCode.InvalidParams : ErrorCode.InternalError;
    return plainMcpError(code, `${err.code}: ${err.message}`, { code: err.code });
  }
  return plainMcpError(ErrorCode.InternalError, `Internal error; see the server log for request ${requestId}`);
}

/**
 * prompts/list and prompts/get on the same use cases as the REST prompts
 * endpoints, over the library REST serves without overrides (the configured
 * repository, else the built-in prompts): MCP has no place for `repo` or a
 * credential header. An unknown prompt or a missing required argument is an
 * InvalidParams error naming it; a library that cannot be fetched is an
 * InternalError carrying the same safe message REST shows.
 */
export function registerMcpPrompts(server: Server, prompts: McpPromptUseCases, requestId: string, onUnexpected: (err: unknown) => void): void {
  server.setRequestHandler(ListPromptsRequestSchema, async () => {
    try {
      const { prompts: list } = await prompts.listPrompts.execute({});
      return {
        prompts: list.map((p): McpPrompt => ({ name: p.name, description: p.description, ...(p.arguments?.length ? { arguments: p.arguments } : {}) })),
      };
    } catch (err) {
      if (!(err instanceof DomainError)) onUnexpected(err);
      throw toMcpError(err, requestId);
    }
  });
  server.setRequestHandler(GetPromptRequestSchema, async (request): Promise<GetPromptResult> => {
    const { name, arguments: args } = request.params;
    try {
      const rendered = await prompts.renderPrompt.execute({ name, arguments: args ?? {} });
      const messages: McpPromptMessage[] = rendered.messages.map((m) => ({ role: m.role, content: { type: 'text', text: m.content.text } }));
      for (const file of rendered.files ?? []) messages.push(fileMessage(name, file));
      return { description: rendered.description, messages };
    } catch (err) {
      if (!(err instanceof DomainError)) onUnexpected(err);
      throw toMcpError(err, requestId);
    }
  });
}
