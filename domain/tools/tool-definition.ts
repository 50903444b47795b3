import type { z } from 'zod';

/** The six categories of SPEC.md. */
export const TOOL_CATEGORIES = ['AI Tools', 'Deployment', 'Management', 'System', 'Troubleshooting', 'Documentation'] as const;
export type ToolCategory = (typeof TOOL_CATEGORIES)[number];

/**
 * One definition per tool. It feeds the catalog, request validation, the
 * OpenAPI document, MCP and the CLI: nothing else describes a tool.
 */
export interface ToolDefinition<Schema extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  category: ToolCategory;
  tags: string[];
  /** Validates the request body; every parameter carries a `.describe()` text. */
  inputSchema: Schema;
  /**
   * The shape of `data.result`: the OpenAPI response schema, MCP `outputSchema`
   * and the CLI's reading of results come from it, and a test holds every
   * tool's real answer to it.
   */
  outputSchema: z.ZodType;
  /**
   * Set on a tool that can push to a git repository: what it pushes, for the
   * OpenAPI description of the `X-Svc-Git-Token` header it then accepts.
   */
  gitPush?: string;
}

/** The request header carrying a per-request git credential (SPEC: Authentication). */
export const GIT_TOKEN_HEADER = 'X-Svc-Git-Token';

export const EVIDENCE_MAX_LENGTH = 20000;
