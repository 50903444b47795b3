import { expect } from 'chai';
import { assertTexts, isUsableVector, MAX_TEXT_LENGTH, MAX_TEXTS_PER_CALL } from '../../../domain/vector/embedding-rules.js';
import { validationCases } from '../../support/validation-cases.js';

describe('vector: the rules every embedder applies', () => {
  const text = (texts: unknown) => () => assertTexts(texts as string[]);
  validationCases([
    ['one text', text(['a web app'])],
    [`${MAX_TEXTS_PER_CALL} texts`, text(Array(MAX_TEXTS_PER_CALL).fill('x'))],
    ['a text of the longest length', text(['x'.repeat(MAX_TEXT_LENGTH)])],
    ['no texts', text([]), /1 to 2048/],
    ['one text too many', text(Array(MAX_TEXTS_PER_CALL + 1).fill('x')), /1 to 2048/],
    ['not a list', text('a web app'), /1 to 2048/],
    ['a blank text', text(['ok', ' \n\t']), /Text 1 to embed is empty/],
    ['a text that is not a string', text([42]), /Text 0 to embed is empty/],
    ['a text one character too long', text(['x'.repeat(MAX_TEXT_LENGTH + 1)]), /Text 0 to embed is longer/],
  ]);

  const vectors: [string, unknown, number | undefined, boolean][] = [
    ['a vector of the dimension', [0.1, 0.2, 0.3], 3, true],
    ['any length when no dimension is set', [1], undefined, true],
    ['another length', [0.1, 0.2], 3, false],
    ['an empty vector', [], undefined, false],
    ['NaN in it', [0.1, NaN, 0.3], 3, false],
    ['Infinity in it', [Infinity], undefined, false],
    ['a number as a string', ['0.1'], undefined, false],
    ['not a list', { 0: 0.1, length: 1 }, undefined, false],
  ];
  for (const [name, vector, dimension, usable] of vectors)
    it(`${name}: ${usable ? 'usable' : 'not usable'}`, () => expect(isUsableVector(vector, dimension)).to.equal(usable));
});
