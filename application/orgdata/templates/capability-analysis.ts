import type { ScanTarget } from '../../../domain/orgdata/capability.js';
import type { Template } from '../../ai/template.js';
import type { CapabilityAnalysis } from '../../../domain/orgdata/capability.js';

export interface CapabilityAnalysisData {
  target: ScanTarget;
  /** A bounded summary of the kind's OpenAPI schema; absent when the cluster publishes none. */
  schemaSummary?: string;
}

/** One kind of the cluster -> what it can do, who provides it, how complex it is, what it is for. */
export const capabilityAnalysisTemplate: Template<CapabilityAnalysisData> = {
  id: 'orgdata/capability-analysis',
  instructions: `You analyse one Kubernetes resource kind served by a cluster, so that a deployment assistant can later find the kinds that fit a user's need.
Describe what the kind can do (capabilities, as short phrases), who provides or backs it (Kubernetes itself, a cloud provider, an operator or project), how complex it is to use well (low, medium or high), the situations it fits (use cases), a one or two sentence description, and how confident you are (0 to 1).
Base the analysis on the kind's name, group and schema. When the schema is absent or says little, say less and lower the confidence rather than inventing features.
Answer with one JSON object with exactly these keys: capabilities (array of strings), providers (array of strings), complexity ("low" | "medium" | "high"), useCases (array of strings), description (string), confidence (number from 0 to 1). No other text.`,
  data: ({ target, schemaSummary }) => ({
    resource: JSON.stringify({
      kind: target.kind,
      group: target.group || 'core',
      version: target.version,
      apiVersion: target.apiVersion,
      resource: target.resource,
      namespaced: target.namespaced,
    }),
    schema: schemaSummary,
  }),
  ask: 'Analyse the resource kind in the data above and answer with the JSON object only.',
};

/** The shape of a capability analysis, for models not sent the schema (checked against capabilityAnalysisSchema by a unit test). */
export const capabilityAnalysisExample: CapabilityAnalysis = {
  capabilities: ['rolling updates', 'replica scaling', 'self-healing pods'],
  providers: ['kubernetes'],
  complexity: 'low',
  useCases: ['Run a stateless web service with several replicas'],
  description: 'Runs a set of identical pods and replaces them gradually when their template changes.',
  confidence: 0.95,
};
