import { expect } from 'chai';
import { allQuestions, emptyQuestionSet, OPEN_QUESTION, QUESTION_STAGES, type Question } from '../../../domain/deployment/question.js';

const q = (id: string, stage: Question['stage']): Question => ({ id, text: id, type: 'string', stage, validation: {} });

describe('deployment: configuration questions', () => {
  it('lists the stages in the order they are answered', () => expect(QUESTION_STAGES).to.deep.equal(['required', 'basic', 'advanced', 'open']));

  it('allQuestions reads every stage in that order, whatever order the set was built in', () => {
    const set = emptyQuestionSet();
    set.open.push(OPEN_QUESTION);
    set.advanced.push(q('c', 'advanced'));
    set.required.push(q('a', 'required'));
    set.basic.push(q('b1', 'basic'), q('b2', 'basic'));
    expect(allQuestions(set).map((x) => x.id)).to.deep.equal(['a', 'b1', 'b2', 'c', 'open']);
  });

  it("each empty set is a new one (a set filled for one solution is not another's)", () => {
    const first = emptyQuestionSet();
    first.basic.push(q('b', 'basic'));
    expect(emptyQuestionSet()).to.deep.equal({ required: [], basic: [], advanced: [], open: [] });
  });

  it('the open question is free text in the open stage, with no rule to break', () => {
    expect(OPEN_QUESTION).to.include({ id: 'open', type: 'text', stage: 'open' });
    expect(OPEN_QUESTION.validation).to.deep.equal({});
  });
});
