import { expect } from 'chai';
import { answerShapeInstructions } from '../../../../application/ai/templates/answer-shape.js';

describe('application/ai/templates/answer-shape: the shape of a structured answer for a backend not sent the schema', () => {
  it('gives the schema and the example as JSON a model can copy, and asks for one JSON object only', () => {
    const schema = { type: 'object', properties: { rootCause: { type: 'string' } }, required: ['rootCause'] };
    const text = answerShapeInstructions(schema, { rootCause: 'e.g. the image tag does not exist' });
    const [, schemaLine, , , exampleLine] = text.split('\n');
    expect(text).to.match(/^Your answer must be one JSON object, with no other text/);
    expect(JSON.parse(schemaLine)).to.deep.equal(schema);
    expect(JSON.parse(exampleLine)).to.deep.equal({ rootCause: 'e.g. the image tag does not exist' });
  });
});
