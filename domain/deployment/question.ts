import type { ConstraintValue, PolicyConstraint } from '../orgdata/policy-constraint.js';

/** The four stages of configuration questions, in the order they are answered. */
export const QUESTION_STAGES = ['required', 'basic', 'advanced', 'open'] as const;
export type QuestionStage = (typeof QUESTION_STAGES)[number];

/** What a caller may send as one answer. */
export type AnswerValue = string | number | boolean | string[];

export interface QuestionValidation {
  enum?: ConstraintValue[];
  /** A regular expression the whole (string) answer must match. */
  pattern?: string;
  minimum?: number;
  maximum?: number;
  /** The question must be answered (or have a suggested default). */
  required?: boolean;
}

/** A policy rule attached to a question: checked on the answer, shown with its message. */
export interface QuestionPolicyRule {
  policy: string;
  constraint: PolicyConstraint;
}

export interface Question {
  /** Key of the answer in answerQuestion's `answers`. */
  id: string;
  text: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'select' | 'text';
  stage: QuestionStage;
  validation: QuestionValidation;
  /** Suggested answer, used when the question is left unanswered. */
  default?: AnswerValue;
  /** The field of the manifests the answer sets (`*` kind: every object). */
  target?: { kind: string; field: string };
  /** Policies whose constraints this question must respect. */
  policyRules?: QuestionPolicyRule[];
}

export type QuestionSet = Record<QuestionStage, Question[]>;

/** Longest free text the `open` stage takes. */
export const OPEN_ANSWER_MAX = 5000;

/** The `open` stage: one free-text question. */
export const OPEN_QUESTION: Question = {
  id: 'open',
  text: 'Anything else the manifests should take into account (free text; leave empty to skip)?',
  type: 'text',
  stage: 'open',
  validation: {},
};

export function emptyQuestionSet(): QuestionSet {
  return { required: [], basic: [], advanced: [], open: [] };
}

export function allQuestions(set: QuestionSet): Question[] {
  return QUESTION_STAGES.flatMap((s) => set[s]);
}
