import { ForbiddenError } from '../errors.js';
import type { ToolName } from '../tools/tool-definitions.js';
import { hasRole, type Caller, type Role } from './caller.js';

type Params = Readonly<Record<string, unknown>>;
/** The role one call of a tool needs, from its (validated) parameters. */
type Rule = Role | ((params: Params) => Role);

const ORG_DATA_READS = new Set(['list', 'get', 'search', 'progress']);
/** `sessionId` alone looks at a session; anything more acts on it. */
const lookOrRun = (params: Params): Role => (params.sessionId !== undefined && Object.keys(params).length === 1 ? 'viewer' : 'operator');

/**
 * The role table of the tools (docs/identity.md): viewers read (version,
 * manageOrgData reads, looking at a session), operators run the AI tools and
 * apply what they propose, admins change organisation data and scan. Keyed by
 * every tool name, so a new tool does not compile without a rule.
 */
const TOOL_RULES: Readonly<Record<ToolName, Rule>> = {
  version: 'viewer',
  recommend: 'operator',
  chooseSolution: 'operator',
  answerQuestion: 'operator',
  generateManifests: 'operator',
  deployManifests: 'operator',
  manageOrgData: (params) => (ORG_DATA_READS.has(String(params.operation)) ? 'viewer' : 'admin'),
  operate: lookOrRun,
  remediate: lookOrRun,
};

/** The tool's rule; own properties only (a name like `constructor` has none). */
function ruleOf(tool: string): Rule | undefined {
  return Object.hasOwn(TOOL_RULES, tool) ? (TOOL_RULES as Record<string, Rule>)[tool] : undefined;
}

/**
 * The lowest role any call of the tool may need: checked before the input is
 * read, so a caller without it learns nothing of the schema. An unknown name
 * needs only `viewer` here (it is answered 404 by whoever knows the tools).
 */
export function leastRoleForTool(tool: string): Role {
  const rule = ruleOf(tool);
  if (rule === undefined) return 'viewer';
  return typeof rule === 'string' ? rule : 'viewer';
}

/** The role this call needs; tools without a rule (a deployment's extra definitions) need `operator`. */
export function roleForToolCall(tool: string, params: Params): Role {
  const rule = ruleOf(tool);
  if (rule === undefined) return 'operator';
  return typeof rule === 'string' ? rule : rule(params);
}

/** The caller's roles in words, for a refusal. */
export function describeRoles(caller: Caller): string {
  return caller.roles.length ? `role${caller.roles.length > 1 ? 's' : ''} ${caller.roles.join(', ')}` : 'no role';
}

/** The 403 FORBIDDEN for a caller without `role`, or undefined when they hold it; `what` says what was asked ("remediate", "POST /api/v1/prompts/refresh"). */
export function missingRole(caller: Caller, role: Role, what: string): ForbiddenError | undefined {
  if (hasRole(caller, role)) return undefined;
  return new ForbiddenError(`${what} needs the ${role} role; ${caller.username} holds ${describeRoles(caller)}`, {
    required: role,
    roles: [...caller.roles],
  });
}

/** Throws the 403 of `missingRole`. */
export function requireRole(caller: Caller, role: Role, what: string): void {
  const refusal = missingRole(caller, role, what);
  if (refusal) throw refusal;
}
