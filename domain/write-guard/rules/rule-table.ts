import { ACCESS_RULES } from './access-rules.js';
import { CAPACITY_RULES } from './capacity-rules.js';
import { CONTAINER_RULES } from './container-rules.js';
import { kindLabel, kindMatches, matches, type FieldRule } from './field-rule.js';
import { METADATA_RULES } from './metadata-rules.js';
import { POD_RULES } from './pod-rules.js';
import { TRAFFIC_RULES } from './traffic-rules.js';
import { WORKLOAD_RULES } from './workload-rules.js';

/**
 * The write guard's one table: every field svc knows, by kind and path (or
 * by the pod found by shape), with what a safe value is and the level a
 * change gets. Read in order; the first rule that claims a path judges it.
 * docs/safe-writes.md shows it (ruleTableMarkdown; a docs test compares).
 */
export const RULE_TABLE: readonly FieldRule[] = [
  ...ACCESS_RULES,
  ...TRAFFIC_RULES,
  ...WORKLOAD_RULES,
  ...CAPACITY_RULES,
  ...POD_RULES,
  ...CONTAINER_RULES,
  ...METADATA_RULES,
];

/** The rules of a kind (scope `object`): empty when svc has none for it. */
export const rulesOfKind = (group: string, kind: string): FieldRule[] =>
  RULE_TABLE.filter((r) => r.scope === 'object' && r.kinds?.some((k) => kindMatches(k, group, kind)));

/** The first rule of `rules` claiming `path`. */
export const ruleFor = (rules: readonly FieldRule[], path: readonly string[]): FieldRule | undefined =>
  rules.find((r) => r.paths.some((p) => matches(p, path)));

const BY_SCOPE = new Map<FieldRule['scope'], FieldRule[]>(
  (['object', 'any', 'pod', 'container', 'pod-metadata'] as const).map((s) => [s, RULE_TABLE.filter((r) => r.scope === s)]),
);

/** The rules of a scope found by shape (`pod`, `container`, `pod-metadata`) or of every kind (`any`). */
export const rulesOfScope = (scope: FieldRule['scope']): readonly FieldRule[] => BY_SCOPE.get(scope) ?? [];

/** Why automatic mode never writes a kind (its rule is sensitive), or undefined. */
export function sensitiveKind(group: string, kind: string): string | undefined {
  return rulesOfKind(group, kind).find((r) => r.sensitive)?.sensitive;
}

const SCOPES: Record<Exclude<FieldRule['scope'], 'object'>, string> = {
  any: 'every kind',
  pod: 'a pod spec, in any kind',
  container: 'a container, in any kind',
  'pod-metadata': "a pod template's labels and annotations",
};

/** The table as docs/safe-writes.md shows it: one row per rule, in the order the guard reads them. */
export function ruleTableMarkdown(): string {
  const rows = RULE_TABLE.map((r) => {
    const where = r.scope === 'object' ? (r.kinds ?? []).map((k) => `\`${kindLabel(k)}\``).join(', ') : SCOPES[r.scope];
    return `| \`${r.id}\` | ${r.area} | ${where} | ${r.paths.map((p) => `\`${p}\``).join(', ')} | ${r.safe} |`;
  });
  return ['| Rule | Area | Kinds | Fields | Safe value and level |', '|---|---|---|---|---|', ...rows].join('\n');
}
