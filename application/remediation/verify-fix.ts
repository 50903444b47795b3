import { DomainError } from '../../domain/errors.js';
import { MAX_ANSWER_CHARS, parseStructuredAnswer } from '../../domain/llm/structured-answer.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import type { Tracer } from '../../domain/ports/tracer.js';
import { verificationSchema } from '../../domain/remediation/remediation-analysis.js';
import { clusterFunctions } from '../ai/cluster-functions.js';
import type { RunBudget } from '../ai/run-budget.js';
import { askFinalAnswer } from '../ai/final-answer.js';
import { render } from '../ai/template.js';
import { runToolLoop, type ToolLoopResult } from '../ai/tool-loop.js';
import { STRUCTURED_CALLS } from './investigate.js';
import type { RunSummary, VerificationResult } from './remediation-state.js';
import { runSummary } from './run-summary.js';
import { verdictExample, verdictTemplate } from './templates/verdict.js';
import { verifyTemplate, type VerifyData } from './templates/verify.js';

/** Model calls of the follow-up check, in all. */
export const VERIFY_MODEL_CALLS = 8;

/**
 * After execution: a short read-only investigation whose JSON answer says
 * whether the issue is gone. It never throws: the changes are already
 * applied, so a check that cannot finish says so (`resolved: null`) and why.
 */
export class VerifyFix {
  constructor(
    private readonly llm: LlmProvider,
    private readonly reader: ClusterReader,
    private readonly tracer: Tracer,
  ) {}

  async execute(input: VerifyData, budget: RunBudget): Promise<VerificationResult> {
    let loop: ToolLoopResult | undefined;
    try {
      loop = await runToolLoop(this.llm, this.tracer, {
        messages: render(verifyTemplate, input),
        functions: clusterFunctions(this.reader),
        budget,
        reserveCalls: STRUCTURED_CALLS,
      });
      if (loop.stoppedBy === 'provider-error') return unknown(`the AI provider failed: ${loop.error ?? 'no answer'}`, runSummary(loop, budget));
      const direct = loop.stoppedBy === 'final-answer' ? parseStructuredAnswer(loop.text, verificationSchema, MAX_ANSWER_CHARS) : undefined;
      const verdict = direct?.ok
        ? direct.value
        : await askFinalAnswer(this.llm, {
            loop,
            template: verdictTemplate,
            data: input,
            schema: verificationSchema,
            name: 'remediation_verification',
            example: verdictExample,
            what: 'verification',
            budget,
          });
      return { ...verdict, run: runSummary(loop, budget) };
    } catch (e) {
      // domain errors carry safe messages; anything else is not echoed
      const why = e instanceof DomainError ? e.message : 'the check failed unexpectedly';
      const run = loop ? runSummary(loop, budget, budget.exhausted() ?? 'analysis-unusable', why) : emptyRun(budget, why);
      return unknown(why, run);
    }
  }
}

function unknown(why: string, run: RunSummary): VerificationResult {
  return { resolved: null, summary: `Could not verify whether the issue is gone: ${why.slice(0, 1000)}`, run };
}

function emptyRun(budget: RunBudget, why: string): RunSummary {
  const usage = budget.usage;
  return {
    modelCalls: budget.calls,
    functionsCalled: [],
    functionCallCount: 0,
    stoppedBy: 'provider-error',
    limit: why.slice(0, 1000),
    tokens: { input: usage.inputTokens, output: usage.outputTokens },
  };
}
