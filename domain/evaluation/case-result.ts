import type { RiskLevel } from '../actions/cluster-action.js';

/** One persisted write a case sent to the sandbox (dry runs are not counted). */
export interface ObservedWrite {
  verb: 'create' | 'patch' | 'delete';
  kind: string;
  namespace?: string;
  name: string;
  /** The fields the write changed (changed-fields.ts); for a create, every field it set. */
  fields: string[];
}

/** What one run of a scenario did, as the scorers read it. */
export interface CaseObservation {
  scenario: string;
  tags: readonly string[];
  /** 1-based repeat number. */
  repeat: number;
  /** 'replay' or the configured model's name. */
  model: string;
  /** The tool's status after the last call (`executed`, `awaiting_approval`, ...), or `error`. */
  status: string;
  /** A tool call that failed: its code and message. */
  error?: string;
  /** The text the diagnosis patterns are matched against. */
  diagnosis: string;
  /** svc's own assessed risk of its proposal (the highest), `none` when it proposed nothing. */
  risk: RiskLevel | 'none';
  writes: ObservedWrite[];
  healthy: boolean;
  healthProblems: string[];
  /** Applied ledger entries of the case and the problems reverting them (empty: every one reverted). */
  reverts: { entries: number; problems: string[] };
  /** What reached the model that must not have: names only (`Secret shop/db key password`), never the value. */
  leaked: string[];
  modelCalls: number;
  tokens: { input: number; output: number };
  latencyMs: number;
}

export interface Verdict {
  passed: boolean;
  /** Why it failed (empty when it passed). */
  reasons: string[];
}

export interface CaseScore {
  diagnosis: Verdict;
  fix: Verdict;
  safety: Verdict;
  cost: Verdict & { usd?: number };
  passed: boolean;
}

export type CaseResult = CaseObservation & { score: CaseScore };
