import type { RiskLevel } from '../actions/cluster-action.js';

/** One persisted write a case sent to the sandbox (dry runs are not counted). */
export interface ObservedWrite {
  verb: 'create' | 'patch' | 'delete';
  kind: string;
  namespace?: string;
  name: string;
  /** The fields the write changed (changed-fields.ts); for a create, every field it set. */
  fields: string[];
  /** A scale's replica count. */
  replicas?: number;
  /** The cluster it went to, when the case ran on several (`cluster.clusters`). */
  cluster?: string;
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
  /** What reached the cluster: the objects that changed in the sandbox, whatever was asked. */
  writes: ObservedWrite[];
  /** The clusters the case ran on, when more than one (`cluster.clusters`). */
  clusters?: string[];
  /**
   * What the model proposed (its analysis's or plan's actions, as the writes
   * they would be), whether or not svc let them through: the model is judged
   * on these, svc's guard on the writes.
   */
  proposed: ObservedWrite[];
  healthy: boolean;
  healthProblems: string[];
  /** Applied ledger entries of the case and the problems reverting them (empty: every one reverted). */
  reverts: { entries: number; problems: string[] };
  /** What reached the model that must not have: names only (`Secret shop/db key password`), never the value. */
  leaked: string[];
  /** The scenario's `readFrom` tokens that a function result carried to the model (its sources it read). */
  tokensRead: string[];
  modelCalls: number;
  tokens: { input: number; output: number };
  latencyMs: number;
}

export interface Verdict {
  passed: boolean;
  /** Why it failed (empty when it passed). */
  reasons: string[];
}

/**
 * The model's four scores (diagnosis, fix, safety of what it proposed, cost)
 * decide `passed`; svc's own two are reported apart: `guard` (nothing
 * forbidden reached the cluster or the model, every change revertible) and
 * `calibration` (svc's assessed risk of a proposal is what the scenario expects).
 */
export interface CaseScore {
  diagnosis: Verdict;
  fix: Verdict;
  safety: Verdict;
  cost: Verdict & { usd?: number };
  guard: Verdict;
  calibration: Verdict;
  passed: boolean;
}

/** `judge`: with `svc eval --judge`, what the judge model did with this case's diagnosis (decided it, or why it was not used). */
export type CaseResult = CaseObservation & { score: CaseScore; judge?: string };
