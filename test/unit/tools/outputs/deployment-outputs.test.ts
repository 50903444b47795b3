import {
  answerQuestionOutput,
  chooseSolutionOutput,
  deployManifestsOutput,
  generateManifestsOutput,
  recommendOutput,
} from '../../../../domain/tools/outputs/deployment-outputs.js';
import { schemaCases } from '../../../support/schema-cases.js';

type Loose = Record<string, unknown> & { nextSteps: Record<string, unknown>[] };
const nextSteps = [{ tool: 'chooseSolution', params: { solutionId: 'sol_1' }, why: 'the best fit' }];
const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' };
const solution = { score: 90, description: 'a Deployment and a Service', resources: [], patternsApplied: [], policiesRespected: [], droppedResources: [] };
const question = { id: 'replicas', text: 'How many?', type: 'integer', stage: 'basic', validation: { minimum: 1 }, default: 2 };

describe('tool outputs: the deployment workflow', () => {
  describe('recommend', () =>
    schemaCases<Loose>(
      recommendOutput,
      () => ({ status: 'solutions', intent: 'a web app', solutions: [{ ...solution, solutionId: 'sol_1' }], notes: [], nextSteps }),
      [['needs-clarification with guidance', (r) => ((r.status = 'needs-clarification'), (r.guidance = ['name the image']), (r.solutions = []))]],
      [
        ['a status outside the three', (r) => void (r.status = 'ok')],
        ['a next step naming a tool outside the workflow', (r) => void (r.nextSteps[0]!.tool = 'operate')],
        ['a solution without its id', (r) => void (r.solutions = [solution])],
      ],
    ));

  describe('chooseSolution', () =>
    schemaCases<Loose>(
      chooseSolutionOutput,
      () => ({ solutionId: 'sol_1', solution, questions: { required: [], basic: [question], advanced: [], open: [] }, answered: [], notes: [], nextSteps }),
      [],
      [
        [
          'a question of a type forms cannot show',
          (c) => void (c.questions = { required: [], basic: [{ ...question, type: 'date' }], advanced: [], open: [] }),
        ],
        ['a stage missing', (c) => void (c.questions = { required: [], basic: [], advanced: [] })],
      ],
    ));

  describe('answerQuestion', () =>
    schemaCases<Loose>(
      answerQuestionOutput,
      () => ({ solutionId: 'sol_1', stage: 'basic', accepted: { replicas: 2, ports: ['80'] }, nextStage: 'advanced', readyForManifests: true, nextSteps }),
      [['the last stage (nextStage null)', (a) => void (a.nextStage = null)]],
      [
        ['an answer that is an object', (a) => void (a.accepted = { replicas: { n: 2 } })],
        ['nextStage missing (null says there is none)', (a) => void delete a.nextStage],
      ],
    ));

  describe('generateManifests', () =>
    schemaCases<Loose>(
      generateManifestsOutput,
      () => ({ solutionId: 'sol_1', status: 'generated', attempts: 1, objects: [ref], manifests: 'apiVersion: apps/v1\n', nextSteps }),
      [['ten attempts', (g) => void (g.attempts = 10)]],
      [
        ['zero attempts', (g) => void (g.attempts = 0)],
        ['eleven attempts (the repair loop stops at ten)', (g) => void (g.attempts = 11)],
        ['another status', (g) => void (g.status = 'failed')],
      ],
    ));

  describe('deployManifests: applied, delivered through git, or cleaned up', () =>
    schemaCases<Loose>(
      deployManifestsOutput,
      () => ({
        solutionId: 'sol_1',
        status: 'ready',
        waitedSeconds: 12,
        applied: [{ ...ref, risk: 'medium', outcome: 'created', ledgerId: 'chg_1' }],
        objects: [{ ...ref, ready: true, reason: 'available' }],
        nextSteps: [],
      }),
      [
        [
          'a git delivery',
          (d) => {
            for (const k of ['waitedSeconds', 'applied', 'objects']) delete d[k];
            Object.assign(d, {
              status: 'pushed',
              delivery: 'git',
              gitops: { repository: 'r', branch: 'b', baseBranch: 'main', commit: 'c', branchCreated: true, files: ['a.yaml'] },
              message: 'pushed',
              nextStep: 'review and merge',
            });
          },
        ],
        [
          'a clean-up',
          (d) => {
            for (const k of ['waitedSeconds', 'applied', 'objects']) delete d[k];
            Object.assign(d, { status: 'cleanup_incomplete', cleanup: [{ ...ref, outcome: 'kept', message: 'changed since' }], message: 'kept one' });
          },
        ],
        [
          'a preview, nothing written',
          (d) => ((d.status = 'previewed'), (d.applied = []), (d.preview = [{ ...ref, effect: 'create', risk: 'low', diff: [] }])),
        ],
      ],
      [
        ['an object outcome outside the six', (d) => void (d.applied = [{ ...ref, risk: 'low', outcome: 'skipped' }])],
        ['an object without its risk', (d) => void (d.applied = [{ ...ref, outcome: 'created' }])],
        ['a status of no variant', (d) => void (d.status = 'pushed')],
        [
          'a clean-up call that does more than clean up',
          (d) => void (d.cleanup = { created: [], call: { tool: 'deployManifests', params: { solutionId: 'sol_1', cleanup: false } } }),
        ],
      ],
    ));
});
