import { z } from 'zod';
import type { ApiResourceInfo } from '../cluster/kube-types.js';

/** One kind a scan analyses: what discovery said about it, and its document id. */
export interface ScanTarget {
  /** The capability document id (capabilityId). */
  id: string;
  group: string;
  version: string;
  apiVersion: string;
  kind: string;
  /** Plural resource name, e.g. `deployments`. */
  resource: string;
  namespaced: boolean;
}

/**
 * A capability is keyed by its resource (kind and group, not version), so a
 * re-scan, or a scan after the preferred version moved, updates it in place:
 * `deployment.apps`, `pod.core`, `widget.example.com`.
 */
export function capabilityId(r: { group: string; kind: string }): string {
  return `${r.kind.toLowerCase()}.${r.group === '' ? 'core' : r.group.toLowerCase()}`;
}

export function toScanTarget(r: ApiResourceInfo): ScanTarget {
  return { id: capabilityId(r), group: r.group, version: r.version, apiVersion: r.apiVersion, kind: r.kind, resource: r.resource, namespaced: r.namespaced };
}

/** One target per kind and group: discovery lists the preferred version of a group first, and it wins. */
export function uniqueTargets(resources: readonly ApiResourceInfo[]): ScanTarget[] {
  const byId = new Map<string, ScanTarget>();
  for (const r of resources) {
    const t = toScanTarget(r);
    if (!byId.has(t.id)) byId.set(t.id, t);
  }
  return [...byId.values()];
}

/**
 * Whether a resource named by a caller is this target. Accepted forms:
 * `Deployment`, `deployments`, `Deployment.apps`, `deployments.apps`,
 * `apps/v1/Deployment`, `v1/Pod`, `pod.core` (case-insensitive).
 */
export function matchesTarget(name: string, t: ScanTarget): boolean {
  const n = name.trim().toLowerCase();
  const kind = t.kind.toLowerCase();
  if (n.includes('/')) {
    const cut = n.lastIndexOf('/');
    return n.slice(0, cut) === t.apiVersion.toLowerCase() && (n.slice(cut + 1) === kind || n.slice(cut + 1) === t.resource);
  }
  const dot = n.indexOf('.');
  const base = dot < 0 ? n : n.slice(0, dot);
  if (base !== kind && base !== t.resource) return false;
  if (dot < 0) return true;
  const group = n.slice(dot + 1);
  return group === (t.group === '' ? 'core' : t.group.toLowerCase()) || (t.group === '' && group === '');
}

const text = (max: number) => z.string().trim().min(1).max(max);

/** The model's analysis of one kind: untrusted, so checked and bounded here. Unknown keys are dropped. */
export const capabilityAnalysisSchema = z.object({
  capabilities: z.array(text(120)).min(1).max(20).describe('What the kind can do, as short phrases (e.g. "rolling updates")'),
  providers: z.array(text(120)).max(10).describe('Who provides or backs it (e.g. "kubernetes", a cloud or an operator)'),
  complexity: z.enum(['low', 'medium', 'high']).describe('How hard it is to use well'),
  useCases: z.array(text(300)).max(10).describe('Situations it fits'),
  description: text(1000).describe('One or two sentences on what the kind is for'),
  confidence: z.number().min(0).max(1).describe('How sure the analysis is, 0 to 1'),
});
export type CapabilityAnalysis = z.infer<typeof capabilityAnalysisSchema>;

/** A stored capability, as its payload holds it. */
export interface CapabilityDocument extends CapabilityAnalysis {
  id: string;
  dataType: 'capabilities';
  resource: Omit<ScanTarget, 'id'>;
  scanId: string;
  /** ISO 8601 */
  analyzedAt: string;
}

export function toCapabilityDocument(target: ScanTarget, analysis: CapabilityAnalysis, scanId: string, analyzedAt: string): CapabilityDocument {
  const { id, ...resource } = target;
  return { id, dataType: 'capabilities', resource, ...analysis, scanId, analyzedAt };
}

/** What is embedded for a capability: the names a request would use, then what the model said. */
export function capabilityEmbeddingText(doc: CapabilityDocument): string {
  const r = doc.resource;
  return [
    `${r.kind} ${r.resource} ${r.group || 'core'} ${r.apiVersion}`,
    doc.description,
    `Capabilities: ${doc.capabilities.join(', ')}`,
    `Providers: ${doc.providers.join(', ')}`,
    `Use cases: ${doc.useCases.join('; ')}`,
  ].join('\n');
}
