import { expect } from 'chai';
import { ValidationError } from '../../domain/errors.js';

/** One check of input before any I/O: a call, and the message it must be refused with (undefined: it must pass). */
export type ValidationCase = [name: string, call: () => unknown, refused?: RegExp];

/** Runs each case as its own test: accepted, or refused with a ValidationError saying why. */
export function validationCases(table: readonly ValidationCase[]): void {
  for (const [name, call, refused] of table)
    it(`${refused ? 'refuses' : 'accepts'} ${name}`, () => {
      if (refused) expect(call).to.throw(ValidationError, refused);
      else expect(call).to.not.throw();
    });
}
