import { expect } from 'chai';
import { ChooseSolution } from '../../../application/deployment/choose-solution.js';
import { SolutionSessions } from '../../../application/deployment/solution-sessions.js';
import type { SolutionState } from '../../../domain/deployment/solution.js';
import { NO_SECOND_APPROVER } from '../../../domain/auth/session-owner.js';
import { DependencyError, ExecutionError } from '../../../domain/errors.js';
import { deployKit, recommendAnswer } from '../../support/deploy-kit.js';
import { rejection } from '../../support/rejection.js';

async function recommended(kit: ReturnType<typeof deployKit>) {
  kit.llm.push(recommendAnswer());
  return (await kit.recommend.execute({ intent: 'an nginx web server for the shop front end' })).solutions[0].solutionId;
}

describe('application/deployment/choose-solution: the questions of a solution from the cluster schemas', () => {
  it('asks about the fields of each resource, from its schema, and stores the questions on the session', async () => {
    const kit = deployKit();
    const solutionId = await recommended(kit);
    const choose = new ChooseSolution(kit.cluster, new SolutionSessions(kit.store, NO_SECOND_APPROVER));
    const chosen = await choose.execute({ solutionId });
    expect(chosen.questions.basic.map((q) => q.id)).to.include.members(['deployment-replicas', 'service-type']);
    expect(chosen.notes).to.deep.equal([]);
    expect(chosen.nextSteps[0]).to.deep.include({ tool: 'answerQuestion' });
    expect((await kit.store.get<SolutionState>('solution', solutionId))!.state).to.have.property('questions');
  });

  it('asks the same questions again, reading no schema, and keeps the answers given', async () => {
    const kit = deployKit();
    const solutionId = await recommended(kit);
    const first = await kit.choose.execute({ solutionId });
    await kit.answer.execute({ solutionId, stage: 'required', answers: { name: 'web', 'deployment-image': 'nginx:1.25' } });
    let reads = 0;
    kit.cluster.getResourceSchema = async () => {
      reads++;
      return null;
    };
    const again = await kit.choose.execute({ solutionId });
    expect(again.questions).to.deep.equal(first.questions);
    expect(again.answered).to.deep.equal(['required']);
    expect(reads).to.equal(0);
  });

  it('says which kinds have no questions when the cluster publishes no schema or cannot be read', async () => {
    const kit = deployKit();
    const solutionId = await recommended(kit);
    kit.cluster.getResourceSchema = async (_apiVersion, kind) => {
      if (kind === 'Service') throw new DependencyError('kubernetes', 'the OpenAPI document timed out');
      return null;
    };
    const chosen = await kit.choose.execute({ solutionId });
    expect(chosen.notes).to.deep.equal([
      'The cluster publishes no schema for apps/v1 Deployment: no questions about its fields.',
      'The schema of Service could not be read (the OpenAPI document timed out): no questions about its fields.',
    ]);
    expect(chosen.questions.required.map((q) => q.id)).to.include('name');
  });

  it('fails on any other error of the schema read, storing no questions', async () => {
    const kit = deployKit();
    const solutionId = await recommended(kit);
    kit.cluster.getResourceSchema = async () => {
      throw new ExecutionError('unexpected');
    };
    expect(await rejection(kit.choose.execute({ solutionId }))).to.be.instanceOf(ExecutionError);
    expect((await kit.store.get<SolutionState>('solution', solutionId))!.state).to.not.have.property('questions');
  });
});
