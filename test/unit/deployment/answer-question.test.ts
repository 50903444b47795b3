import { expect } from 'chai';
import { AnswerQuestion } from '../../../application/deployment/answer-question.js';
import { SolutionSessions } from '../../../application/deployment/solution-sessions.js';
import type { SolutionState } from '../../../domain/deployment/solution.js';
import { NO_SECOND_APPROVER } from '../../../domain/auth/session-owner.js';
import { ValidationError } from '../../../domain/errors.js';
import { deployKit, manifestsAnswer, recommendAnswer, webManifests } from '../../support/deploy-kit.js';
import { rejection } from '../../support/rejection.js';

const required = { name: 'web', 'deployment-image': 'nginx:1.25' };

async function chosen(kit: ReturnType<typeof deployKit>) {
  kit.llm.push(recommendAnswer());
  const solutionId = (await kit.recommend.execute({ intent: 'an nginx web server for the shop front end' })).solutions[0].solutionId;
  await kit.choose.execute({ solutionId });
  return { solutionId, answer: new AnswerQuestion(kit.cluster, new SolutionSessions(kit.store, NO_SECOND_APPROVER)) };
}

describe('application/deployment/answer-question: a stage of answers checked, stored, and what comes next', () => {
  it('stores the answers as their questions type them and names the next stage', async () => {
    const kit = deployKit();
    const { solutionId, answer } = await chosen(kit);
    const done = await answer.execute({ solutionId, stage: 'required', answers: { ...required, namespace: 'shop' } });
    expect(done).to.deep.include({ stage: 'required', nextStage: 'basic', readyForManifests: true });
    const basic = await answer.execute({ solutionId, stage: 'basic', answers: { 'deployment-replicas': '2' } });
    expect(basic.accepted).to.deep.include({ 'deployment-replicas': 2 });
    expect((await kit.store.get<SolutionState>('solution', solutionId))!.state.answers.basic).to.deep.include({ 'deployment-replicas': 2 });
  });

  it('refuses a namespace the cluster does not have, storing nothing', async () => {
    const kit = deployKit();
    const { solutionId, answer } = await chosen(kit);
    const error = await rejection(answer.execute({ solutionId, stage: 'required', answers: { ...required, namespace: 'nowhere' } }));
    expect(error).to.be.instanceOf(ValidationError);
    expect((error as ValidationError).details).to.deep.equal({ question: 'namespace', rule: 'exists' });
    expect((await kit.store.get<SolutionState>('solution', solutionId))!.state.answers).to.deep.equal({});
  });

  it('drops the manifests generated from answers that changed, and keeps them when the same answers come again', async () => {
    const kit = deployKit();
    const { solutionId, answer } = await chosen(kit);
    await answer.execute({ solutionId, stage: 'required', answers: required });
    kit.llm.push(manifestsAnswer(webManifests()));
    await kit.generate.execute({ solutionId });

    const same = await answer.execute({ solutionId, stage: 'required', answers: required });
    expect(same).to.not.have.property('notes');
    expect((await kit.store.get<SolutionState>('solution', solutionId))!.state).to.have.property('manifests');

    const changed = await answer.execute({ solutionId, stage: 'required', answers: { ...required, 'deployment-image': 'nginx:1.27' } });
    expect(changed.notes).to.deep.equal(['The answers changed: the manifests generated earlier were dropped; generate them again.']);
    expect((await kit.store.get<SolutionState>('solution', solutionId))!.state).to.not.have.property('manifests');
    expect(changed.nextSteps.map((s) => s.tool)).to.include('generateManifests');
  });
});
