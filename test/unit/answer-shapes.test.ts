import { expect } from 'chai';
import { z } from 'zod';
import { RunBudget } from '../../application/ai/run-budget.js';
import { askStructured } from '../../application/ai/structured-chat.js';
import { recommendationSchema } from '../../application/deployment/recommend.js';
import { manifestsExample } from '../../application/deployment/templates/generate-manifests.js';
import { recommendationExample } from '../../application/deployment/templates/recommend.js';
import { planExample } from '../../application/operations/templates/plan.js';
import { capabilityAnalysisExample } from '../../application/orgdata/templates/capability-analysis.js';
import { analysisExample } from '../../application/remediation/templates/analyse.js';
import { verdictExample } from '../../application/remediation/templates/verdict.js';
import { generatedManifestsSchema } from '../../domain/deployment/manifest-checks.js';
import type { StructuredOutputMode } from '../../domain/llm/llm-types.js';
import { operationPlanSchema } from '../../domain/operations/operation-plan.js';
import type { LlmStatus } from '../../domain/ports/llm-provider.js';
import { capabilityAnalysisSchema } from '../../domain/orgdata/capability.js';
import { remediationAnalysisSchema, verificationSchema } from '../../domain/remediation/remediation-analysis.js';
import { FakeLlm } from '../fakes/fake-llm.js';

/** A scripted model behind a backend set to one SVC_LLM_STRUCTURED_OUTPUT mode. */
class ModeLlm extends FakeLlm {
  constructor(
    private readonly mode: StructuredOutputMode,
    replies: string[],
  ) {
    super(replies);
  }
  override status(): LlmStatus {
    return { ...super.status(), structuredOutput: this.mode };
  }
}

describe('the answer shape for models not sent the schema (SVC_LLM_STRUCTURED_OUTPUT json_object and none)', () => {
  const shapes: [string, z.ZodType, unknown][] = [
    ['remediation analysis', remediationAnalysisSchema, analysisExample],
    ['remediation verdict', verificationSchema, verdictExample],
    ['operation plan', operationPlanSchema, planExample],
    ['capability analysis', capabilityAnalysisSchema, capabilityAnalysisExample],
    ['recommendation', recommendationSchema, recommendationExample],
    ['manifests', generatedManifestsSchema, manifestsExample],
  ];
  for (const [what, schema, example] of shapes)
    it(`the ${what} example fits its schema exactly (nothing dropped by parsing)`, () => {
      const parsed = schema.safeParse(example);
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).to.equal(true);
      expect(parsed.data).to.deep.equal(example);
    });

  it('puts the JSON schema and the example in the instructions in json_object and none modes, not with json_schema', async () => {
    const budget = () => new RunBudget({ maxCalls: 5, maxTokens: 100000, timeoutMs: 5000 });
    const messages = [
      { role: 'system' as const, content: 'You check fixes.' },
      { role: 'user' as const, content: 'Is it fixed?' },
    ];
    const answer = JSON.stringify({ resolved: true, summary: 'web is ready' });
    for (const mode of ['json_object', 'none', 'json_schema'] as const) {
      const llm = new ModeLlm(mode, [answer]);
      const verdict = await askStructured(llm, { messages, schema: verificationSchema, name: 'v', example: verdictExample, what: 'verdict', budget: budget() });
      expect(verdict).to.deep.equal({ resolved: true, summary: 'web is ready' });
      const [system, user] = llm.calls[0].messages;
      expect(user).to.deep.equal(messages[1]);
      if (mode === 'json_schema') {
        expect(system.content, mode).to.equal('You check fixes.');
        continue;
      }
      expect(system.content, mode).to.match(/^You check fixes\.\n\nYour answer must be one JSON object, with no other text, that fits this JSON Schema:\n\{/);
      expect(system.content).to.contain(JSON.stringify(z.toJSONSchema(verificationSchema, { unrepresentable: 'any' })));
      expect(system.content).to.contain(`An example of an answer with that shape`).and.contain(JSON.stringify(verdictExample));
    }
    // no system message: the shape becomes one
    const bare = new ModeLlm('none', [answer]);
    await askStructured(bare, { messages: [messages[1]], schema: verificationSchema, name: 'v', example: verdictExample, what: 'verdict', budget: budget() });
    expect(bare.calls[0].messages.map((m) => m.role)).to.deep.equal(['system', 'user']);
    expect(bare.calls[0].messages[0].content).to.match(/^Your answer must be one JSON object/);
  });
});
