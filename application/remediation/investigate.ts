import { DependencyError } from '../../domain/errors.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import type { Tracer } from '../../domain/ports/tracer.js';
import { remediationAnalysisSchema } from '../../domain/remediation/remediation-analysis.js';
import { clusterFunctions } from '../ai/cluster-functions.js';
import { namespacesRead } from '../ai/namespaces-read.js';
import type { RunBudget } from '../ai/run-budget.js';
import { askFinalAnswer, loopRecord } from '../ai/final-answer.js';
import { StructuredAnswerError } from '../ai/structured-chat.js';
import { render } from '../ai/template.js';
import { runToolLoop } from '../ai/tool-loop.js';
import type { RemediationState } from './remediation-state.js';
import { runSummary } from './run-summary.js';
import { analyseTemplate, analysisExample } from './templates/analyse.js';
import { investigateTemplate, type InvestigateData } from './templates/investigate.js';

/** Model calls kept back from the loop for the structured answer and its one retry. */
export const STRUCTURED_CALLS = 2;

export type InvestigationResult = Pick<RemediationState, 'analysis' | 'investigation' | 'namespacesRead'>;

/**
 * Investigates an issue with the read-only cluster functions, then asks, in a
 * fresh conversation that carries the investigation as data, for the analysis
 * as JSON checked against `remediationAnalysisSchema`. A limit or a provider failure before a usable
 * analysis is a partial result (no analysis, which limit, what was found);
 * an analysis that stays unusable after one retry is a 500 EXECUTION_ERROR.
 */
export class Investigate {
  constructor(
    private readonly llm: LlmProvider,
    private readonly reader: ClusterReader,
    private readonly tracer: Tracer,
  ) {}

  async execute(input: InvestigateData, budget: RunBudget): Promise<InvestigationResult> {
    const loop = await runToolLoop(this.llm, this.tracer, {
      messages: render(investigateTemplate, input),
      functions: clusterFunctions(this.reader),
      budget,
      reserveCalls: STRUCTURED_CALLS,
    });
    const findings = loop.text.trim() ? { findings: loopRecord(loop).findings } : {};
    const read = { namespacesRead: namespacesRead(loop.functionCalls) };
    if (loop.stoppedBy === 'provider-error') return { investigation: { ...runSummary(loop, budget), ...findings }, ...read };
    const stoppedEarly =
      loop.stoppedBy === 'final-answer' ? undefined : `svc ended the investigation: ${budget.describe(loop.stoppedBy)}. Answer with what you found.`;
    try {
      const analysis = await askFinalAnswer(this.llm, {
        loop,
        template: analyseTemplate,
        data: { ...input, stoppedEarly },
        schema: remediationAnalysisSchema,
        name: 'remediation_analysis',
        example: analysisExample,
        what: 'remediation analysis',
        budget,
      });
      return {
        // the model's risk labels as given: the preview raises them to svc's assessment and says why
        analysis,
        investigation: { ...runSummary(loop, budget), ...findings },
        ...read,
      };
    } catch (e) {
      if (e instanceof StructuredAnswerError)
        return { investigation: { ...runSummary(loop, budget, budget.exhausted() ?? 'analysis-unusable', e.message), ...findings }, ...read };
      if (e instanceof DependencyError) return { investigation: { ...runSummary(loop, budget, 'provider-error', e.message), ...findings }, ...read };
      throw e;
    }
  }
}
