import type { Owned } from '../auth/session-owner.js';
import type { KubeObject } from '../cluster/kube-types.js';
import type { PolicyRules } from './answer-rules.js';
import type { AnswerValue, QuestionSet, QuestionStage } from './question.js';

/** One kind a solution uses, as the cluster serves it. */
export interface SolutionResource {
  apiVersion: string;
  kind: string;
  namespaced: boolean;
  /** What it is for in this solution. */
  purpose: string;
}

/** A kind the model named that the cluster does not serve: dropped, never passed on. */
export interface DroppedResource {
  kind: string;
  apiVersion?: string;
  reason: string;
}

export interface Solution {
  /** 0..100, higher is better. */
  score: number;
  description: string;
  resources: SolutionResource[];
  /** Ids of the stored patterns the solution applies. */
  patternsApplied: string[];
  /** Ids of the stored policies the solution must respect. */
  policiesRespected: string[];
  droppedResources: DroppedResource[];
}

export interface GeneratedManifests {
  objects: KubeObject[];
  yaml: string;
  attempts: number;
  generatedAt: string;
}

/** The state of one solution session (kind `solution`, id `sol_...`). */
export interface SolutionState extends Owned {
  intent: string;
  solution: Solution;
  /** Constraints of the policies found for the intent: question rules, and checked on the final objects. */
  policies: PolicyRules[];
  /** Set by chooseSolution. */
  questions?: QuestionSet;
  /** Answers by stage; a stage present here was answered (or skipped with `{}`). */
  answers: Partial<Record<QuestionStage, Record<string, AnswerValue>>>;
  /** Set by generateManifests; cleared when an answer changes. */
  manifests?: GeneratedManifests;
  /** Set by deployManifests; `outcomes`: what the last deploy did to each object. */
  deployment?: {
    deployedAt: string;
    ready: boolean;
    deployments: number;
    outcomes?: { apiVersion: string; kind: string; name: string; namespace?: string; outcome: string; message?: string; ledgerId?: string }[];
    /** Set by deployManifests with `cleanup`: what the cleanup of this deploy did. */
    cleanup?: { at: string; objects: { kind: string; name: string; namespace?: string; outcome: string; revertId?: string; message?: string }[] };
  };
  /** Set by deployManifests with `gitops`: the last delivery through git. */
  gitDelivery?: { deliveredAt: string; repository: string; branch: string; commit: string; pullRequestUrl?: string };
}
