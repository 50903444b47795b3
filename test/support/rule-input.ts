import { expect } from 'chai';
import type { RiskLevel } from '../../domain/actions/cluster-action.js';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import type { PathSegment } from '../../domain/operations/object-diff.js';
import { pathKey } from '../../domain/write-guard/leaf-changes.js';
import { patternPath, type FieldRule, type RuleVerdict } from '../../domain/write-guard/rules/field-rule.js';
import { ruleFor } from '../../domain/write-guard/rules/rule-table.js';

/**
 * Builders for the unit tests of the write guard's rule files
 * (test/unit/write-guard/rules/): one leaf as a rule sees it, judged by the
 * first rule of a list that claims it, without the guard around it.
 */

/** The segments of a path as formatPath writes it: `spec.ports[0].port`, `containers[name=web].image`, `annotations["a.io/b"]`. */
export function segmentsOf(path: string): PathSegment[] {
  return [...path.matchAll(/([^.[\]]+)|\["([^"]*)"\]|\[name=([^\]]+)\]|\[(\d+)\]/g)].map((m) =>
    m[2] !== undefined ? { key: m[2] } : m[3] !== undefined ? { name: m[3] } : m[4] !== undefined ? { index: Number(m[4]) } : { key: m[1]! },
  );
}

/** One leaf's change, with the object around it. `kind` defaults to Deployment; `created` to false. */
export interface Leaf {
  path: string;
  from?: unknown;
  to?: unknown;
  kind?: string;
  created?: boolean;
  result?: KubeObject;
}

const object = (kind: string): KubeObject => ({ apiVersion: 'v1', kind, metadata: { name: 'web', namespace: 'shop' } });

/** What the first rule of `rules` claiming the leaf's path makes of it; `id` undefined when none claims it (the guard then rates it high). */
export function judgedBy(rules: readonly FieldRule[], leaf: Leaf): { id?: string; verdict?: RuleVerdict } {
  const segments = segmentsOf(leaf.path);
  const kind = leaf.kind ?? 'Deployment';
  const rule = ruleFor(rules, patternPath(segments));
  if (!rule) return {};
  const change = { segments, key: pathKey(segments), ...('from' in leaf ? { from: leaf.from } : {}), ...('to' in leaf ? { to: leaf.to } : {}) };
  const result = leaf.result ?? object(kind);
  const created = leaf.created ?? false;
  return {
    id: rule.id,
    verdict: rule.judge({ change, path: patternPath(segments), shown: leaf.path, kind, created, live: created ? null : result, result }),
  };
}

/** One row of a rule file's table: the leaf, the rule that must claim it (undefined: none may), the level, and a reason it must give. */
export interface RuleCase extends Leaf {
  name: string;
  rule: string | undefined;
  risk?: RiskLevel;
  reason?: RegExp;
}

/** Runs each case as its own test: the claiming rule, its level, its reason (a low verdict gives none). */
export function ruleCases(rules: readonly FieldRule[], cases: readonly RuleCase[]): void {
  for (const c of cases)
    it(`${c.name}: ${c.rule ?? 'no rule'}${c.risk ? `, ${c.risk}` : ''}`, () => {
      const { id, verdict } = judgedBy(rules, c);
      expect(id).to.equal(c.rule);
      if (c.risk) expect(verdict?.risk, verdict?.reason).to.equal(c.risk);
      if (c.reason) expect(verdict?.reason).to.match(c.reason);
      if (c.risk === 'low') expect(verdict?.reason).to.equal(undefined);
    });
}
