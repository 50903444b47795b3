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
import { DomainError } from '../../domain/errors.js';

/** The prompt library as MCP reads it; bound at the composition of the /mcp route to the prompts use cases. */
export interface McpPromptUseCases {
  list(): Promise<{ name: string; description: string; arguments?: { name: string; description: string; required: boolean }[] }[]>;
  render(
    name: string,
    args: Record<string, string>,
  ): Promise<{
    description: string;
    messages: { role: 'user' | 'assistant'; content: { type: 'text'; text: string } }[];
    files?: { path: string; content: string; mode: string }[];
  }>;
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
    const code = err.code === 'VALIDATION_ERROR' || err.code === 'PROMPT_NOT_FOUND' ? ErrorCode.InvalidParams : ErrorCode.InternalError;
    return new McpError(code, `${err.code}: ${err.message}`, { code: err.code });
  }
  return new McpError(ErrorCode.InternalError, `Internal error; see the server log for request ${requestId}`);
}

/** prompts/list and prompts/get on the same use cases as the REST prompts endpoints. */
export function registerMcpPrompts(server: Server, prompts: McpPromptUseCases, requestId: string, onUnexpected: (err: unknown) => void): void {
  server.setRequestHandler(ListPromptsRequestSchema, async () => {
    try {
      const list = await prompts.list();
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
      const rendered = await prompts.render(name, args ?? {});
      const messages: McpPromptMessage[] = rendered.messages.map((m) => ({ role: m.role, content: { type: 'text', text: m.content.text } }));
      for (const file of rendered.files ?? []) messages.push(fileMessage(name, file));
      return { description: rendered.description, messages };
    } catch (err) {
      if (!(err instanceof DomainError)) onUnexpected(err);
      throw toMcpError(err, requestId);
    }
  });
}
