import { z } from 'zod';
import { versionOutput } from './outputs/version-output.js';
import { remediateOutput } from './outputs/remediate-output.js';
import { EVIDENCE_MAX_LENGTH, type ToolDefinition } from './tool-definition.js';

const solutionId = z.string().min(1).max(200).describe('Solution id returned by recommend (sol_ followed by 32 hex digits)');
const sessionId = z.string().min(1).max(200).describe('Session id returned by an earlier call of this tool, to continue that session');
const evidence = z
  .string()
  .max(EVIDENCE_MAX_LENGTH)
  .describe(`Optional evidence gathered by the caller (logs, events, command output), up to ${EVIDENCE_MAX_LENGTH} characters`);
const executeChoice = z.number().int().min(1).max(2).describe('With sessionId: 1 to execute the proposed change through svc (dry run first), 2 to stop without executing');

/** Each tool's input schema, by tool name: the one source of the handlers' input types. */
export const TOOL_INPUTS = {
  version: z.strictObject({}),
  recommend: z.strictObject({
      intent: z.string().trim().min(1).max(2000).describe('What to deploy, in plain language (for example "a PostgreSQL database with backups")'),
      final: z.boolean().optional().describe('true when the intent is already refined and recommend must not ask clarifying questions'),
    }),
  chooseSolution: z.strictObject({ solutionId }),
  answerQuestion: z.strictObject({
      solutionId,
      stage: z.enum(['required', 'basic', 'advanced', 'open']).describe('Question stage being answered'),
      answers: z
        .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]))
        .describe('Answers keyed by question id; the open stage takes {"open": "free text"}; an empty object skips an optional stage'),
    }),
  generateManifests: z.strictObject({ solutionId }),
  deployManifests: z.strictObject({
      solutionId,
      timeout: z.number().int().min(1).max(600).optional().describe('Seconds to wait for readiness (1 to 600, default 30)'),
    }),
  manageOrgData: z.strictObject({
      dataType: z.enum(['pattern', 'policy', 'capabilities']).describe('Kind of organizational data'),
      operation: z.enum(['create', 'list', 'get', 'delete', 'deleteAll', 'search', 'scan', 'progress']).describe('Operation to perform'),
      id: z.string().min(1).max(200).optional().describe('Item id, for get and delete'),
      query: z.string().min(1).max(2000).optional().describe('Search text, for search'),
      limit: z.number().int().min(1).max(100).optional().describe('Maximum items returned by list and search (1 to 100, default 10)'),
      resource: z.string().min(1).max(300).optional().describe('Kubernetes resource (kind.group) to scan, for scan; all resources when absent'),
      sessionId: sessionId.optional(),
      response: z.string().max(5000).optional().describe('Answer to the current step of a create session'),
    }),
  operate: z.strictObject({
      intent: z.string().trim().min(1).max(2000).optional().describe('The change to make, in plain language; required to start a new operation'),
      evidence: evidence.optional(),
      sessionId: sessionId.optional(),
      refinedIntent: z.string().trim().min(1).max(2000).optional().describe('With sessionId: a corrected or more precise intent; the operation is planned again within the session'),
      executeChoice: executeChoice.optional(),
    }),
  remediate: z.strictObject({
      issue: z.string().trim().min(1).max(2000).optional().describe('The problem to investigate, in plain language; required to start a new investigation'),
      evidence: evidence.optional(),
      mode: z.enum(['manual', 'automatic']).optional().describe('manual (default) asks before executing; automatic executes within the thresholds'),
      confidenceThreshold: z.number().min(0).max(1).optional().describe('Minimum confidence (0 to 1) for automatic execution, default 0.8'),
      maxRiskLevel: z.enum(['low', 'medium', 'high']).optional().describe('Highest risk automatic execution may take, default low'),
      sessionId: sessionId.optional(),
      executeChoice: executeChoice.optional(),
    }),
} as const;

export type ToolName = keyof typeof TOOL_INPUTS;
/** The validated input a tool's handler receives. */
export type ToolInput<N extends ToolName> = z.infer<(typeof TOOL_INPUTS)[N]>;

export const TOOL_DEFINITIONS: ToolDefinition[] = [
  {
    name: 'version',
    description: 'Report the service version and the health of every dependency: vector database and its collections, embedding service, AI provider, Kubernetes cluster and tracing.',
    category: 'System',
    tags: ['status', 'health', 'diagnostics'],
    inputSchema: TOOL_INPUTS.version,
    outputSchema: versionOutput,
  },
  {
    name: 'recommend',
    description: 'Turn a deployment intent in plain language into ranked solutions built from the cluster capabilities, organizational patterns and policies.',
    category: 'AI Tools',
    tags: ['ai', 'deployment', 'recommendation'],
    inputSchema: TOOL_INPUTS.recommend,
  },
  {
    name: 'chooseSolution',
    description: 'Select one of the solutions returned by recommend and get the configuration questions it needs, derived from the resources schemas.',
    category: 'Deployment',
    tags: ['deployment', 'workflow'],
    inputSchema: TOOL_INPUTS.chooseSolution,
  },
  {
    name: 'answerQuestion',
    description: 'Answer the configuration questions of a chosen solution, one stage at a time: required, basic, advanced, then open.',
    category: 'Deployment',
    tags: ['deployment', 'workflow'],
    inputSchema: TOOL_INPUTS.answerQuestion,
  },
  {
    name: 'generateManifests',
    description: 'Generate Kubernetes manifests for a fully answered solution and fix them against a server-side dry run until the cluster accepts them.',
    category: 'Deployment',
    tags: ['deployment', 'manifests', 'ai'],
    inputSchema: TOOL_INPUTS.generateManifests,
  },
  {
    name: 'deployManifests',
    description: 'Apply the generated manifests of a solution to the cluster and wait until its resources are ready.',
    category: 'Deployment',
    tags: ['deployment', 'kubernetes'],
    inputSchema: TOOL_INPUTS.deployManifests,
  },
  {
    name: 'manageOrgData',
    description: 'Manage organizational data used by recommendations: deployment patterns, policy intents and cluster resource capabilities (create, list, get, delete, search, scan).',
    category: 'Management',
    tags: ['patterns', 'policies', 'capabilities', 'vector'],
    inputSchema: TOOL_INPUTS.manageOrgData,
  },
  {
    name: 'operate',
    description: 'Plan and run a day-2 operation on existing workloads (scale, update, roll back): analyse, dry-run, then execute after approval.',
    category: 'Management',
    tags: ['operations', 'kubernetes', 'ai'],
    inputSchema: TOOL_INPUTS.operate,
  },
  {
    name: 'remediate',
    description: 'Investigate a Kubernetes issue with read-only cluster calls, find the root cause and propose (or, on approval, execute) a fix.',
    category: 'Troubleshooting',
    tags: ['troubleshooting', 'kubernetes', 'ai'],
    inputSchema: TOOL_INPUTS.remediate,
    outputSchema: remediateOutput,
  },
];
