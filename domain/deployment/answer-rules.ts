import { ValidationError } from '../errors.js';
import { checkValue, type ConstraintValue, type PolicyConstraint } from '../orgdata/policy-constraint.js';
import { OPEN_ANSWER_MAX, type AnswerValue, type Question, type QuestionSet, type QuestionStage } from './question.js';

/** A policy's constraints, with the policy's id (or description) for messages. */
export interface PolicyRules {
  policy: string;
  constraints: PolicyConstraint[];
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/\[\]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

function tighten(q: Question, c: PolicyConstraint): void {
  const v = q.validation;
  if (c.allowedValues) v.enum = v.enum ? v.enum.filter((x) => c.allowedValues!.includes(x)) : [...c.allowedValues];
  if (c.minimum !== undefined) v.minimum = Math.max(v.minimum ?? -Infinity, c.minimum);
  if (c.maximum !== undefined) v.maximum = Math.min(v.maximum ?? Infinity, c.maximum);
  if (c.required) v.required = true;
  if (c.pattern !== undefined && v.pattern === undefined) v.pattern = c.pattern;
  if (v.enum && q.type !== 'select') q.type = 'select';
  if (q.default !== undefined && ruleProblem(q.default, c)) {
    const fallback: ConstraintValue | undefined = v.enum?.[0] ?? c.minimum ?? c.maximum;
    if (fallback !== undefined) q.default = fallback;
    else delete q.default;
  }
}

function ruleProblem(value: AnswerValue, c: PolicyConstraint): string | undefined {
  const values = Array.isArray(value) ? value : [value];
  for (const v of values) {
    const problem = checkValue(v, c);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * Policies become validation: a constraint on a field a question sets tightens
 * that question (and is checked on its answer); a constraint no question
 * touches becomes a question of its own (`required` when the policy requires
 * the field, else `basic`), so the answer can satisfy it.
 */
export function applyPolicies(set: QuestionSet, policies: PolicyRules[], kinds: string[]): QuestionSet {
  const out: QuestionSet = JSON.parse(JSON.stringify(set)) as QuestionSet;
  const all = () => [...out.required, ...out.basic, ...out.advanced];
  for (const { policy, constraints } of policies) {
    for (const c of constraints) {
      if (c.kind !== '*' && !kinds.includes(c.kind)) continue;
      const touched = all().filter((q) => q.target && q.target.field === c.field && (c.kind === '*' || q.target.kind === c.kind || q.target.kind === '*'));
      for (const q of touched) {
        tighten(q, c);
        (q.policyRules ??= []).push({ policy, constraint: c });
      }
      if (touched.length) continue;
      const stage: QuestionStage = c.required ? 'required' : 'basic';
      const type = c.allowedValues ? 'select' : c.minimum !== undefined || c.maximum !== undefined ? 'number' : 'string';
      const q: Question = {
        id: `policy-${c.kind === '*' ? 'all' : c.kind.toLowerCase()}-${slug(c.field)}`,
        text: `${c.field} of ${c.kind === '*' ? 'every object' : `the ${c.kind}`}${c.message ? ` (policy: ${c.message})` : ' (required by a policy)'}`,
        type,
        stage,
        validation: {},
        target: { kind: c.kind, field: c.field },
      };
      if (all().some((x) => x.id === q.id)) continue;
      tighten(q, c);
      if (c.allowedValues?.length) q.default = c.allowedValues[0];
      q.policyRules = [{ policy, constraint: c }];
      out[stage].push(q);
    }
  }
  return out;
}

function coerce(q: Question, raw: AnswerValue): AnswerValue {
  if (
    (q.type === 'integer' || q.type === 'number' || (q.type === 'select' && typeof q.validation.enum?.[0] === 'number')) &&
    typeof raw === 'string' &&
    raw.trim() !== '' &&
    Number.isFinite(Number(raw))
  )
    return Number(raw);
  if (q.type === 'boolean' && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}

/** The problem with one answer, as "rule: what is wrong", or undefined. */
export function answerProblem(q: Question, value: AnswerValue): string | undefined {
  const v = q.validation;
  if (q.type === 'integer' && !Number.isInteger(value)) return `type: must be an integer, got ${JSON.stringify(value)}`;
  if (q.type === 'number' && typeof value !== 'number') return `type: must be a number, got ${JSON.stringify(value)}`;
  if (q.type === 'boolean' && typeof value !== 'boolean') return `type: must be true or false, got ${JSON.stringify(value)}`;
  if ((q.type === 'string' || q.type === 'text') && typeof value !== 'string') return `type: must be a string, got ${JSON.stringify(value)}`;
  if (typeof value === 'string' && value.length > OPEN_ANSWER_MAX) return `length: at most ${OPEN_ANSWER_MAX} characters`;
  // Policy rules first: a value a policy forbids is refused in the policy's name, not by the bound it tightened.
  for (const r of q.policyRules ?? []) {
    const problem = ruleProblem(value, r.constraint);
    if (problem) return `policy ${r.policy}${r.constraint.message ? ` (${r.constraint.message})` : ''}: ${problem}`;
  }
  if (v.enum && !v.enum.some((e) => e === value))
    return `enum: must be one of ${v.enum.map((e) => JSON.stringify(e)).join(', ')}, got ${JSON.stringify(value)}`;
  if (v.pattern !== undefined && typeof value === 'string' && !new RegExp(`^(?:${v.pattern})$`).test(value))
    return `pattern: must match ${v.pattern}, got ${JSON.stringify(value)}`;
  if (v.minimum !== undefined && typeof value === 'number' && value < v.minimum) return `minimum: must be at least ${v.minimum}, got ${value}`;
  if (v.maximum !== undefined && typeof value === 'number' && value > v.maximum) return `maximum: must be at most ${v.maximum}, got ${value}`;
  return undefined;
}

/**
 * Checks one stage's answers against its questions: unknown ids, types,
 * enum, pattern, minimum, maximum, required and policy rules. A missing
 * answer takes the suggested default. The first problem is a 400 naming the
 * question and the rule. Returns the answers to store.
 */
export function validateStageAnswers(set: QuestionSet, stage: QuestionStage, answers: Record<string, AnswerValue>): Record<string, AnswerValue> {
  const questions = set[stage];
  const known = new Map(questions.map((q) => [q.id, q]));
  for (const id of Object.keys(answers)) {
    if (!known.has(id)) {
      throw new ValidationError(`Unknown question "${id}" for stage ${stage}; its questions are: ${questions.map((q) => q.id).join(', ') || '(none)'}`, {
        question: id,
        rule: 'unknown',
      });
    }
  }
  const out: Record<string, AnswerValue> = {};
  for (const q of questions) {
    const given = answers[q.id];
    const value = given === undefined || given === '' ? q.default : coerce(q, given);
    if (value === undefined) {
      if (q.validation.required)
        throw new ValidationError(`Question "${q.id}" (${q.text}) is required and has no suggested default: answer it`, { question: q.id, rule: 'required' });
      continue;
    }
    const problem = answerProblem(q, value);
    if (problem)
      throw new ValidationError(`Invalid answer for question "${q.id}": ${problem}`, {
        question: q.id,
        rule: problem.startsWith('policy ') ? `policy:${problem.split(' ')[1]}` : problem.split(':')[0],
        problem,
      });
    out[q.id] = value;
  }
  return out;
}
