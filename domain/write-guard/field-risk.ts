import { RISK_LEVELS, type RiskLevel } from '../actions/cluster-action.js';
import type { KubeObject } from '../cluster/kube-types.js';
import { formatPath } from '../operations/object-diff.js';
import type { KindRisk } from './kind-risk.js';
import { pathKey, type LeafChange } from './leaf-changes.js';
import { podRegions, type PodRegion } from './pod-shapes.js';
import type { ResolvedTarget } from './resolved-target.js';
import { kindLabel, patternPath, verdict, type FieldRule, type RuleVerdict } from './rules/field-rule.js';
import { ruleFor, rulesOfKind, rulesOfScope } from './rules/rule-table.js';

/** Reasons found in a write, by the level they raise the risk to. */
export interface RiskFindings {
  high: string[];
  medium: string[];
}

/** At most this many "does not know" reasons are listed; the rest are counted. */
const MAX_UNKNOWN = 5;
const rank = (r: RiskLevel) => RISK_LEVELS.indexOf(r);
const atLeast = (v: RuleVerdict, floor: RuleVerdict): RuleVerdict => (rank(v.risk) >= rank(floor.risk) ? v : floor);

/** The longest region (pod spec, container, template metadata) a leaf lies in, looked up by each of its path's prefixes. */
function regionOf(regions: ReadonlyMap<string, PodRegion>, leaf: LeafChange): PodRegion | undefined {
  let best: PodRegion | undefined;
  let key = '';
  for (const segment of leaf.segments) {
    key += pathKey([segment]);
    best = regions.get(key) ?? best;
  }
  return best;
}

/**
 * Judges every changed leaf by the rule table (a positive model): a leaf
 * in a pod found by shape by the pod rules, any other by its kind's rules,
 * then the rules of every kind. A leaf no rule claims is high ("svc does not
 * know what <kind> <path> does"); a kind with no rules at all is high for
 * any change unless SVC_KIND_RISK (`kindRisks`) states its risk; the rules
 * of every kind still raise it (finalizers, a pod spec patch). Medium
 * verdicts inside a pod are summed up by the pod's own reason (pod-risk.ts).
 */
export function fieldFindings(
  target: ResolvedTarget,
  live: KubeObject | null,
  result: KubeObject,
  leaves: readonly LeafChange[],
  kindRisks: readonly KindRisk[],
): RiskFindings {
  const high = new Set<string>();
  const medium = new Set<string>();
  const unknown: string[] = [];
  const regions = new Map([...(live ? podRegions(live) : []), ...podRegions(result)].map((r) => [r.key, r]));
  const own = rulesOfKind(target.group, target.kind);
  const anyKind = rulesOfScope('any');
  const stated = kindRisks.find((k) => k.group === target.group && k.kind === target.kind);
  const kind = kindLabel(target);
  const base = { kind: target.kind, created: live === null, live, result };
  // the rule of a path, found once per judgement: list items share a path (every env[].value), so a large pod costs few lookups
  const found = new Map<string, FieldRule | undefined>();
  const claiming = (scope: PodRegion['scope'] | undefined, path: string[]): FieldRule | undefined => {
    const key = `${scope ?? ''}\u0000${path.join('\u0000')}`;
    if (!found.has(key)) found.set(key, scope ? ruleFor(rulesOfScope(scope), path) : (ruleFor(own, path) ?? ruleFor(anyKind, path)));
    return found.get(key);
  };
  for (const leaf of leaves) {
    const region = regionOf(regions, leaf);
    const relative = leaf.segments.slice(region?.segments.length ?? 0);
    const input = { ...base, change: leaf, path: patternPath(relative), shown: formatPath(leaf.segments) };
    const rule = claiming(region?.scope, input.path);
    let judged = rule?.judge(input);
    if (judged && region) judged = atLeast(judged, verdict('medium'));
    if (own.length === 0) {
      if (!stated) {
        // a kind svc has no rules for: every leaf is unknown, unless a rule has a reason of its own to make it high
        if (judged?.risk === 'high' && judged.reason) high.add(judged.reason);
        else unknown.push(input.shown);
        continue;
      }
      const floor = verdict(stated.risk, stated.risk === 'low' ? undefined : `SVC_KIND_RISK rates ${kind} ${stated.risk}`);
      judged = judged ? atLeast(judged, floor) : floor;
    }
    if (!judged) {
      unknown.push(input.shown);
      continue;
    }
    if (judged.risk === 'high') high.add(judged.reason ?? `${target.kind} ${input.shown}: high`);
    else if (judged.risk === 'medium' && !region && judged.reason) medium.add(judged.reason);
    else if (judged.risk === 'medium' && !region) medium.add(`${target.kind} ${input.shown} ${input.created ? 'is set' : 'changes'}`);
  }
  if (unknown.length && own.length === 0 && !stated) high.add(`svc has no rules for ${kind}: any change is high unless SVC_KIND_RISK states its risk`);
  for (const path of unknown.slice(0, MAX_UNKNOWN)) high.add(`svc does not know what ${target.kind} ${path} does`);
  if (unknown.length > MAX_UNKNOWN) high.add(`svc does not know what ${unknown.length - MAX_UNKNOWN} more fields of ${target.kind} do`);
  return { high: [...high], medium: [...medium] };
}
