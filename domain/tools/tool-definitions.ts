import { z } from 'zod';
import { ORG_DATA_OPERATIONS, ORG_DATA_TYPES, refineOrgDataInput, validCombinations } from '../orgdata/org-data-operations.js';
import { orgDocumentInput } from '../orgdata/org-documents.js';
import { EVIDENCE_MAX_LENGTH, PLAN_APPROVAL_STEPS, type ToolDefinition } from './tool-definition.js';
import { gitopsInput } from './gitops-input.js';
import { deliveryInput } from './outputs/gitops-output.js';
import { SESSION_KINDS, type SessionKind } from '../sessions/session.js';
import { CLUSTER_NAME, LABEL_KEY, LABEL_VALUE } from '../fleet/cluster-profile.js';

const solutionId = z.string().min(1).max(200).describe('Solution id returned by recommend (sol_ followed by 32 hex digits)');
const sessionId = z.string().min(1).max(200).describe('Session id returned by an earlier call of this tool, to continue that session');
const evidence = z
  .string()
  .max(EVIDENCE_MAX_LENGTH)
  .describe(`Optional evidence gathered by the caller (logs, events, command output), up to ${EVIDENCE_MAX_LENGTH} characters`);
const executeChoice = z
  .number()
  .int()
  .min(1)
  .max(2)
  .describe('With sessionId: 1 to execute the proposed change through svc (dry run first), 2 to stop without executing');
const onFailure = z
  .enum(['revert', 'report'])
  .describe(
    'What svc does when its verdict after the write is degraded (worse than before): revert undoes every write of the execution through the change ledger, newest first; report leaves it and answers the calls that revert. Default SVC_ON_FAILURE_DEFAULT, else report (revert in automatic mode)',
  );
const planDigest = z
  .string()
  .regex(/^sha256:[0-9a-f]{64}$/, 'the planDigest of the proposal (sha256: followed by 64 hex digits)')
  .describe(
    'With executeChoice 1: the planDigest of the proposal you reviewed; execution is refused (409 CONFLICT) when the plan changed since. Required of a second approver',
  );

const cluster = z
  .string()
  .regex(CLUSTER_NAME, 'a cluster name (a kubeconfig context name)')
  .describe(
    'The cluster the call is for: a name svc serves (SVC_CLUSTERS, GET /api/v1/clusters). Required when svc serves more than one; defaults to the only one otherwise. A session continues only on its own cluster',
  );

const clusterSelector = z
  .record(z.string().regex(LABEL_KEY, 'a label key'), z.string().regex(LABEL_VALUE, 'a label value'))
  .refine((s) => Object.keys(s).length <= 20, 'at most 20 labels');

/** Each tool's input schema, by tool name: the one source of the handlers' input types. */
export const TOOL_INPUTS = {
  version: z.strictObject({
    cluster: cluster.optional().describe('Report this cluster only; without it, version reports every cluster svc serves'),
  }),
  recommend: z.strictObject({
    intent: z.string().trim().min(1).max(2000).describe('What to deploy, in plain language (for example "a PostgreSQL database with backups")'),
    final: z.boolean().optional().describe('true when the intent is already refined and recommend must not ask clarifying questions'),
    cluster: cluster.optional(),
  }),
  chooseSolution: z.strictObject({ solutionId, cluster: cluster.optional() }),
  answerQuestion: z.strictObject({
    solutionId,
    stage: z.enum(['required', 'basic', 'advanced', 'open']).describe('Question stage being answered'),
    answers: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]))
      .describe('Answers keyed by question id; the open stage takes {"open": "free text"}; an empty object skips an optional stage'),
    cluster: cluster.optional(),
  }),
  generateManifests: z.strictObject({ solutionId, cluster: cluster.optional() }),
  deployManifests: z.strictObject({
    solutionId,
    timeout: z.number().int().min(1).max(600).optional().describe('Seconds to wait for readiness (1 to 600, default 30)'),
    gitops: gitopsInput
      .optional()
      .describe('Deliver through git instead of applying to the cluster: push the manifests to a repository (Argo CD or Flux applies them)'),
    cleanup: z
      .literal(true)
      .optional()
      .describe(
        "Instead of deploying: delete the objects the last deploy of this solution created, and only those, newest first, through the change ledger's revert (each only while it is as the deploy left it)",
      ),
    preview: z
      .literal(true)
      .optional()
      .describe(
        "Instead of deploying: preview every object through svc's write guard (dry run, diff against the live object, svc's risk and reasons, refusals) and answer status previewed with the planDigest; nothing is written",
      ),
    planDigest: z
      .string()
      .regex(/^sha256:[0-9a-f]{64}$/, 'the planDigest of the preview (sha256: followed by 64 hex digits)')
      .optional()
      .describe(
        'The planDigest of the preview you reviewed: the deploy is refused (409 CONFLICT) when the plan (the manifests, or a live object) changed since. Required of a second approver',
      ),
    onFailure: onFailure.optional(),
    cluster: cluster.optional(),
  }),
  manageOrgData: z
    .strictObject({
      dataType: z.enum(ORG_DATA_TYPES).describe('Kind of organizational data: pattern, policy or capabilities'),
      operation: z.enum(ORG_DATA_OPERATIONS).describe(`Operation to perform; valid per dataType: ${validCombinations()}`),
      id: z.string().min(1).max(200).optional().describe('Document id, for get and delete; a scan id for progress (default: the latest scan)'),
      document: orgDocumentInput.optional().describe('The whole pattern or policy, for create'),
      query: z.string().trim().min(1).max(2000).optional().describe('Search text, for search'),
      limit: z.number().int().min(1).max(100).optional().describe('Maximum items returned by list and search (1 to 100, default 10)'),
      cursor: z.string().min(1).max(500).optional().describe('For list: the `next` value of the previous page'),
      confirm: z.literal(true).optional().describe('For deleteAll: must be true, to confirm deleting every document of the dataType'),
      resources: z
        .array(z.string().trim().min(1).max(300))
        .min(1)
        .max(500)
        .optional()
        .describe('For scan: the kinds to scan (Deployment, deployments.apps, apps/v1/Deployment); all kinds the cluster serves when absent'),
      cluster: cluster
        .optional()
        .describe(
          'For capabilities: the cluster they are of, which a scan scans (required when svc serves more than one); patterns and policies are shared by every cluster',
        ),
    })
    .superRefine(refineOrgDataInput),
  operate: z.strictObject({
    intent: z.string().trim().min(1).max(2000).optional().describe('The change to make, in plain language; required to start a new operation'),
    evidence: evidence.optional(),
    sessionId: sessionId.optional(),
    refinedIntent: z
      .string()
      .trim()
      .min(1)
      .max(2000)
      .optional()
      .describe('With sessionId: a corrected or more precise intent; the operation is planned again within the session'),
    executeChoice: executeChoice.optional(),
    planDigest: planDigest.optional(),
    delivery: deliveryInput.optional(),
    onFailure: onFailure.optional(),
    cluster: cluster.optional(),
    clusterSelector: clusterSelector
      .optional()
      .describe(
        'Instead of cluster, to start: plan the change in every cluster whose labels carry all of these (SVC_CLUSTERS_FILE), each previewed through the guard; one approval (the rollout planDigest) executes it wave by wave, verifying each wave and stopping (and reverting that wave) at the first degraded one',
      ),
    waves: z
      .array(z.array(z.string().regex(CLUSTER_NAME, 'a cluster name')).min(1).max(64))
      .min(1)
      .max(16)
      .optional()
      .describe('With clusterSelector: the waves in order, each a list of cluster names; every matching cluster exactly once'),
    waveOrder: z
      .string()
      .max(500)
      .regex(/^[^,=\s]+=[^,=\s]*(,[^,=\s]+=[^,=\s]*)*$/, 'label=value pairs, comma-separated')
      .optional()
      .describe('With clusterSelector: a wave per label=value in this order (env=staging,env=production); every matching cluster must carry one'),
  }),
  remediate: z.strictObject({
    issue: z.string().trim().min(1).max(2000).optional().describe('The problem to investigate, in plain language; required to start a new investigation'),
    namespace: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/)
      .optional()
      .describe(
        'The namespace the issue is about. Automatic mode writes only in namespaces the caller named: this one, or one the issue names as namespace X, X/name or -n X',
      ),
    evidence: evidence.optional(),
    mode: z.enum(['manual', 'automatic']).optional().describe('manual (default) asks before executing; automatic executes within the thresholds'),
    confidenceThreshold: z.number().min(0).max(1).optional().describe('Minimum confidence (0 to 1) for automatic execution, default 0.8'),
    maxRiskLevel: z.enum(['low', 'medium', 'high']).optional().describe('Highest risk automatic execution may take, default low'),
    sessionId: sessionId.optional(),
    executeChoice: executeChoice.optional(),
    planDigest: planDigest.optional(),
    delivery: deliveryInput.optional(),
    onFailure: onFailure.optional().describe('With executeChoice 1, or when starting with mode automatic: ' + onFailure.description),
    cluster: cluster.optional(),
    clusterSelector: clusterSelector
      .optional()
      .describe(
        'Instead of cluster, to start: investigate the same issue in every cluster whose labels carry all of these (at most 16, three at a time, each with its own budget, manual mode); the answer gives each cluster’s root cause and proposal, and what they have in common',
      ),
  }),
} as const;

export type ToolName = keyof typeof TOOL_INPUTS;
/** The validated input a tool's handler receives. */
export type ToolInput<N extends ToolName> = z.infer<(typeof TOOL_INPUTS)[N]>;

type Outputs = typeof import('./outputs/deployment-outputs.js') &
  typeof import('./outputs/org-data-output.js') &
  typeof import('./outputs/version-output.js') &
  typeof import('./outputs/operate-output.js') &
  typeof import('./outputs/remediate-output.js');
let loadedOutputs: Outputs | undefined;

/**
 * The tools' output schemas, built on first read of an `outputSchema`: they
 * are most of the tools' schemas (about 8 MB of heap and a good part of the
 * start), and only the OpenAPI document, MCP's tools/list and the output
 * checks read them; the catalog and request validation need the inputs alone.
 */
function outputs(): Outputs {
  return (loadedOutputs ??= {
    ...(require('./outputs/deployment-outputs.js') as typeof import('./outputs/deployment-outputs.js')),
    ...(require('./outputs/org-data-output.js') as typeof import('./outputs/org-data-output.js')),
    ...(require('./outputs/version-output.js') as typeof import('./outputs/version-output.js')),
    ...(require('./outputs/operate-output.js') as typeof import('./outputs/operate-output.js')),
    ...(require('./outputs/remediate-output.js') as typeof import('./outputs/remediate-output.js')),
  });
}

export const TOOL_DEFINITIONS: ToolDefinition[] = [
  {
    name: 'version',
    description:
      'Report the service version and the health of every dependency: vector database and its collections, embedding service, AI provider, Kubernetes cluster and tracing.',
    category: 'System',
    tags: ['status', 'health', 'diagnostics'],
    inputSchema: TOOL_INPUTS.version,
    get outputSchema() {
      return outputs().versionOutput;
    },
  },
  {
    name: 'recommend',
    description: 'Turn a deployment intent in plain language into ranked solutions built from the cluster capabilities, organizational patterns and policies.',
    category: 'AI Tools',
    tags: ['ai', 'deployment', 'recommendation'],
    inputSchema: TOOL_INPUTS.recommend,
    get outputSchema() {
      return outputs().recommendOutput;
    },
    longRunning: true,
    sessions: ['solution'],
    evaluated: true,
  },
  {
    name: 'chooseSolution',
    description: 'Select one of the solutions returned by recommend and get the configuration questions it needs, derived from the resources schemas.',
    category: 'Deployment',
    tags: ['deployment', 'workflow'],
    inputSchema: TOOL_INPUTS.chooseSolution,
    get outputSchema() {
      return outputs().chooseSolutionOutput;
    },
  },
  {
    name: 'answerQuestion',
    description: 'Answer the configuration questions of a chosen solution, one stage at a time: required, basic, advanced, then open.',
    category: 'Deployment',
    tags: ['deployment', 'workflow'],
    inputSchema: TOOL_INPUTS.answerQuestion,
    get outputSchema() {
      return outputs().answerQuestionOutput;
    },
  },
  {
    name: 'generateManifests',
    description: 'Generate Kubernetes manifests for a fully answered solution and fix them against a server-side dry run until the cluster accepts them.',
    category: 'Deployment',
    tags: ['deployment', 'manifests', 'ai'],
    inputSchema: TOOL_INPUTS.generateManifests,
    get outputSchema() {
      return outputs().generateManifestsOutput;
    },
    longRunning: true,
  },
  {
    name: 'deployManifests',
    description:
      'Apply the generated manifests of a solution to the cluster and wait until its resources are ready, or with `gitops` commit them to a git repository (with a pull request when asked) for Argo CD or Flux to apply.',
    category: 'Deployment',
    tags: ['deployment', 'kubernetes'],
    inputSchema: TOOL_INPUTS.deployManifests,
    get outputSchema() {
      return outputs().deployManifestsOutput;
    },
    gitPush: "the solution's manifests, with `gitops`",
    longRunning: true,
  },
  {
    name: 'manageOrgData',
    description:
      'Manage organizational data used by recommendations: deployment patterns, policies (with machine-checkable constraints) and cluster resource capabilities learned by scanning the cluster (create, list, get, delete, deleteAll, search, scan, progress).',
    category: 'Management',
    tags: ['patterns', 'policies', 'capabilities', 'vector'],
    inputSchema: TOOL_INPUTS.manageOrgData,
    get outputSchema() {
      return outputs().orgDataOutput;
    },
  },
  {
    name: 'operate',
    description: 'Plan and run a day-2 operation on existing workloads (scale, update, roll back): analyse, dry-run, then execute after approval.',
    category: 'Management',
    tags: ['operations', 'kubernetes', 'ai'],
    inputSchema: TOOL_INPUTS.operate,
    get outputSchema() {
      return outputs().operateOutput;
    },
    gitPush: 'the planned change, with `delivery: "git"` on objects Argo CD or Flux manage',
    longRunning: true,
    sessions: ['operation', 'rollout'],
    approvalSteps: PLAN_APPROVAL_STEPS,
    evaluated: true,
  },
  {
    name: 'remediate',
    description: 'Investigate a Kubernetes issue with read-only cluster calls, find the root cause and propose (or, on approval, execute) a fix.',
    category: 'Troubleshooting',
    tags: ['troubleshooting', 'kubernetes', 'ai'],
    inputSchema: TOOL_INPUTS.remediate,
    get outputSchema() {
      return outputs().remediateOutput;
    },
    gitPush: 'the fix, with `delivery: "git"` on objects Argo CD or Flux manage',
    longRunning: true,
    sessions: ['remediation'],
    approvalSteps: PLAN_APPROVAL_STEPS,
    evaluated: true,
  },
];

/** The tools of this build by name. */
export const TOOL_BY_NAME: ReadonlyMap<string, ToolDefinition> = new Map(TOOL_DEFINITIONS.map((d) => [d.name, d]));

/** Tools whose run can be long: the ones that honour `Prefer: respond-async` (`longRunning`). */
export const LONG_RUNNING_TOOLS: ReadonlySet<string> = new Set(TOOL_DEFINITIONS.filter((d) => d.longRunning).map((d) => d.name));

/** The tools evaluation scenarios may drive (`evaluated`), in definition order. */
export const EVALUATED_TOOLS = TOOL_DEFINITIONS.filter((d) => d.evaluated).map((d) => d.name as ToolName) as [ToolName, ...ToolName[]];

/** The tool of each session kind (`sessions`); a kind without exactly one tool stops the module loading. */
export const SESSION_TOOL_OF: Readonly<Record<SessionKind, ToolName>> = (() => {
  const of = {} as Record<SessionKind, ToolName>;
  for (const kind of Object.keys(SESSION_KINDS) as SessionKind[]) {
    const tools = TOOL_DEFINITIONS.filter((d) => d.sessions?.includes(kind));
    if (tools.length !== 1) throw new Error(`session kind ${kind} needs exactly one tool whose sessions name it, found ${tools.length}`);
    of[kind] = tools[0].name as ToolName;
  }
  return of;
})();
