import {
  capabilityAnalysisSchema,
  capabilityEmbeddingText,
  toCapabilityDocument,
  type CapabilityDocument,
  type ScanTarget,
} from '../../domain/orgdata/capability.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import { askStructured } from '../ai/structured-chat.js';
import { RunBudget } from '../ai/run-budget.js';
import { render } from '../ai/template.js';
import type { OrgCollection } from './org-collection.js';
import { summariseSchema } from './schema-summary.js';
import { capabilityAnalysisExample, capabilityAnalysisTemplate } from './templates/capability-analysis.js';

export interface AnalysisLimits {
  /** Wall-clock limit for one kind (schema, model answer and its one retry), milliseconds. */
  timeoutMs: number;
  /** Input + output tokens one kind may spend. */
  maxTokens: number;
  /** Upper bound on the model's output per call. */
  maxOutputTokens: number;
}

/**
 * One kind of a scan: read its schema through the read port, ask the model
 * for a schema-checked analysis (one retry, then a failure of this kind only),
 * embed and store it under the kind's own id.
 */
export class AnalyseCapability {
  constructor(
    private readonly cluster: ClusterReader,
    private readonly llm: LlmProvider,
    private readonly collection: OrgCollection,
    private readonly limits: AnalysisLimits,
  ) {}

  async execute(target: ScanTarget, scanId: string, now: () => string): Promise<CapabilityDocument> {
    const budget = new RunBudget({ maxCalls: 2, maxTokens: this.limits.maxTokens, timeoutMs: this.limits.timeoutMs });
    const schema = await budget.race(this.cluster.getResourceSchema(target.apiVersion, target.kind));
    const messages = render(capabilityAnalysisTemplate, { target, ...(schema ? { schemaSummary: summariseSchema(schema.schema) } : {}) });
    const analysis = await askStructured(this.llm, {
      messages,
      schema: capabilityAnalysisSchema,
      name: 'capability_analysis',
      example: capabilityAnalysisExample,
      what: `capability analysis of ${target.kind}${target.group ? `.${target.group}` : ''}`,
      budget,
      options: { temperature: 0, maxOutputTokens: this.limits.maxOutputTokens },
    });
    const doc = toCapabilityDocument(target, analysis, scanId, now());
    await this.collection.upsert([{ id: doc.id, text: capabilityEmbeddingText(doc), payload: { ...doc } }]);
    return doc;
  }
}
