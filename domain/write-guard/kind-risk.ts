import { RISK_LEVELS, type RiskLevel } from '../actions/cluster-action.js';
import { parseKindName } from './kind-names.js';
import { kindLabel } from './rules/field-rule.js';
import { rulesOfKind } from './rules/rule-table.js';

/** An operator's statement (SVC_KIND_RISK) of the risk of any change to a kind svc has no rules for. */
export interface KindRisk {
  group: string;
  kind: string;
  risk: RiskLevel;
}

/**
 * Parses one SVC_KIND_RISK entry, `acme.io/BuildJob=medium` (`core/Kind`
 * for the core group). Throws on a bare kind (a custom resource is named by
 * its API group), an unknown level, or a kind the rule table already has
 * rules for (its fields are judged by them, never by a stated level).
 */
export function parseKindRisk(entry: string): KindRisk {
  const eq = entry.lastIndexOf('=');
  const name = eq < 0 ? entry : entry.slice(0, eq);
  const risk = entry.slice(eq + 1).trim();
  if (eq < 0 || !(RISK_LEVELS as readonly string[]).includes(risk))
    throw new Error(`"${entry}" is not kind=level (such as acme.io/BuildJob=medium; levels: low, medium, high)`);
  const parsed = parseKindName(name);
  if (parsed.group === undefined) throw new Error(`"${entry}": name the kind with its API group (such as acme.io/BuildJob)`);
  const found = { group: parsed.group, kind: parsed.kind, risk: risk as RiskLevel };
  if (rulesOfKind(found.group, found.kind).length)
    throw new Error(`"${entry}": svc has rules for ${kindLabel(found)} (docs/safe-writes.md); SVC_KIND_RISK states the risk of kinds it has none for`);
  return found;
}
