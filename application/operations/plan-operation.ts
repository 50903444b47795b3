import { operationPlanSchema, type OperationPlan } from '../../domain/operations/operation-plan.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import type { Tracer } from '../../domain/ports/tracer.js';
import { clusterFunctions } from '../ai/cluster-functions.js';
import { RunBudget } from '../ai/run-budget.js';
import { askFinalAnswer } from '../ai/final-answer.js';
import { render } from '../ai/template.js';
import { runToolLoop } from '../ai/tool-loop.js';
import type { InvestigationSummary } from './operation-state.js';
import { investigateTemplate, type InvestigateData } from './templates/investigate.js';
import { planExample, planTemplate } from './templates/plan.js';

/** Model calls one operate run may make in all: the investigation and the structured answer with its retry. */
export const OPERATE_MAX_MODEL_CALLS = 30;
/** Calls kept back from the investigation for the plan and its one retry. */
const RESERVED_FOR_PLAN = 2;

export interface PlanLimits {
  /** SVC_AI_TIMEOUT_MS. */
  timeoutMs: number;
  /** SVC_AI_MAX_TOKENS. */
  maxTokens: number;
}

export interface PlannedOperation {
  plan: OperationPlan;
  investigation: InvestigationSummary;
}

/**
 * Asks the model for an operation: it reads the live state with the
 * read-only functions (nothing it calls can write), then answers, in a fresh
 * conversation that carries the investigation as data, with a plan checked
 * against `operationPlanSchema`. At most 30 model calls in all, two
 * of them kept for the answer. A plan that cannot be had is an
 * EXECUTION_ERROR saying why (the limit reached, or what was wrong with the answer).
 */
export class PlanOperation {
  constructor(
    private readonly llm: LlmProvider,
    private readonly reader: ClusterReader,
    private readonly tracer: Tracer,
    private readonly limits: PlanLimits,
  ) {}

  async execute(input: InvestigateData): Promise<PlannedOperation> {
    const budget = new RunBudget({ maxCalls: OPERATE_MAX_MODEL_CALLS, maxTokens: this.limits.maxTokens, timeoutMs: this.limits.timeoutMs });
    const loop = await runToolLoop(this.llm, this.tracer, {
      messages: render(investigateTemplate, input),
      functions: clusterFunctions(this.reader),
      budget,
      reserveCalls: RESERVED_FOR_PLAN,
    });
    const note =
      loop.stoppedBy === 'final-answer'
        ? undefined
        : `The investigation was cut short: ${loop.stoppedBy === 'provider-error' ? 'the AI provider failed' : budget.describe(loop.stoppedBy)}. Plan from what was read; give no actions if that is not enough.`;
    const plan = await askFinalAnswer(this.llm, {
      loop,
      template: planTemplate,
      data: { ...input, investigationNote: note },
      schema: operationPlanSchema,
      name: 'operation_plan',
      example: planExample,
      what: 'operation plan',
      budget,
    });
    return { plan, investigation: { modelCalls: budget.calls, functionCalls: loop.functionCalls.length, stoppedBy: loop.stoppedBy } };
  }
}
