import type { ApiResourceInfo, KubeObject } from '../../domain/cluster/kube-types.js';
import { checkGeneratedObjects, generatedManifestsSchema, objectName } from '../../domain/deployment/manifest-checks.js';
import { withSolutionLabels } from '../../domain/deployment/manifest-labels.js';
import { ExecutionError } from '../../domain/errors.js';
import type { ChatMessage } from '../../domain/llm/llm-types.js';
import type { PolicyConstraint } from '../../domain/orgdata/policy-constraint.js';
import { policyViolations } from '../../domain/orgdata/policy-match.js';
import type { ClusterWriter } from '../../domain/ports/cluster-writer.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import type { RunBudget } from '../ai/run-budget.js';
import { askStructured } from '../ai/structured-chat.js';
import { render } from '../ai/template.js';
import { repairManifestsTemplate } from './templates/repair-manifests.js';
import { manifestsExample } from './templates/generate-manifests.js';

export const MAX_MANIFEST_ATTEMPTS = 10;
const MAX_ERRORS = 30;

export interface RepairLoopInput {
  messages: ChatMessage[];
  solutionId: string;
  served: readonly ApiResourceInfo[];
  namespace?: string;
  constraints: PolicyConstraint[];
  budget: RunBudget;
}

/** What one attempt's objects got wrong: svc's checks, the policies, then the API server's dry run of each object. */
async function problemsOf(raw: KubeObject[], input: RepairLoopInput, writer: ClusterWriter): Promise<{ objects: KubeObject[]; problems: string[] }> {
  const checked = checkGeneratedObjects(raw, input.served, input.namespace);
  const objects = checked.objects.map((o) => withSolutionLabels(o, input.solutionId));
  const problems = [...checked.problems];
  for (const v of policyViolations(objects, input.constraints)) problems.push(`${v.object}: ${v.field} breaks a policy: ${v.problem}`);
  for (const o of objects) {
    const verdict = await writer.dryRunApply(o, { fieldManager: 'svc' });
    if (verdict.accepted) continue;
    const causes = verdict.causes.map((c) => `${c.field ? `${c.field}: ` : ''}${c.message}`).join('; ');
    problems.push(
      `${objectName(o)}: the API server refused it (${verdict.reason}): ${verdict.message}${causes && !verdict.message.includes(causes) ? ` [${causes}]` : ''}`,
    );
  }
  return { objects, problems };
}

/**
 * Asks the model for the manifests, checks them and dry-runs each on the API
 * server; on any refusal the errors go back to the model, for at most
 * MAX_MANIFEST_ATTEMPTS attempts in all. Only the first messages, the last
 * answer and its errors are sent each time, so a long repair does not grow
 * the context. Exhaustion is an EXECUTION_ERROR listing the last errors.
 */
export async function generateWithRepair(
  llm: LlmProvider,
  writer: ClusterWriter,
  input: RepairLoopInput,
): Promise<{ objects: KubeObject[]; attempts: number }> {
  let messages = input.messages;
  let last: string[] = [];
  for (let attempt = 1; attempt <= MAX_MANIFEST_ATTEMPTS; attempt++) {
    const answer = await askStructured(llm, {
      messages,
      schema: generatedManifestsSchema,
      name: 'manifests',
      example: manifestsExample,
      what: 'manifests',
      budget: input.budget,
    });
    const { objects, problems } = await problemsOf(answer.manifests as KubeObject[], input, writer);
    if (problems.length === 0) return { objects, attempts: attempt };
    last = problems.slice(0, MAX_ERRORS);
    const repair = render(repairManifestsTemplate, { attempt, maxAttempts: MAX_MANIFEST_ATTEMPTS, errors: last.join('\n') })[1];
    messages = [...input.messages, { role: 'assistant', content: JSON.stringify(answer).slice(0, 60_000) }, repair];
  }
  throw new ExecutionError(`The manifests were refused ${MAX_MANIFEST_ATTEMPTS} times; nothing was stored. Last errors: ${last.join(' | ').slice(0, 4000)}`, {
    attempts: MAX_MANIFEST_ATTEMPTS,
    errors: last,
  });
}
