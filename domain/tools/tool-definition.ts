import type { z } from 'zod';
import type { SessionKind } from '../sessions/session.js';

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
  /**
   * A call can take long: the tool honours `Prefer: respond-async` (a run,
   * `202` and `GET /api/v1/runs/{id}`), and `svc run` starts it as a run and
   * follows it live.
   */
  longRunning?: boolean;
  /**
   * The kinds of session the tool's calls start and continue (`sessionId`):
   * `GET /api/v1/sessions` names this tool for a session of those kinds. One
   * tool per kind (operate has two: an operation, and a rollout across clusters).
   */
  sessions?: readonly SessionKind[];
  /**
   * The tool proposes a plan that waits for approval (`awaiting_approval` with
   * a `planDigest`): the wording of the two next steps `svc run` prints after
   * it, executing the plan shown (executeChoice 1 with its digest) or
   * stopping (executeChoice 2).
   */
  approvalSteps?: { execute: string; stop: string };
  /** Evaluation scenarios may drive this tool (the `tool` of a scenario.yaml). */
  evaluated?: boolean;
}

/** The `svc run` next steps of the tools that wait for approval (remediate, operate). */
export const PLAN_APPROVAL_STEPS = {
  execute: 'execute the plan as shown (every action is dry-run first; the digest pins it to what you reviewed)',
  stop: 'stop without changing anything',
} as const;

/** The request header carrying a per-request git credential (SPEC: Authentication). */
export const GIT_TOKEN_HEADER = 'X-Svc-Git-Token';

export const EVIDENCE_MAX_LENGTH = 20000;
