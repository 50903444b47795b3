import { expect } from 'chai';
import { ConflictError, ValidationError } from '../../../domain/errors.js';
import { checkIntentFields, intentNotOpen } from '../../../domain/ledger/intents.js';
import { aChangeRecord, anIntentRecord } from '../../support/ledger-records.js';

describe('ledger: an intent and the entry that closes it', () => {
  it('an intent is pending and names no intent; an outcome entry is not pending', () => {
    expect(() => checkIntentFields(anIntentRecord())).to.not.throw();
    expect(() => checkIntentFields(aChangeRecord({ intentId: 'chg_1_0123abcd' }))).to.not.throw();
    expect(() => checkIntentFields(aChangeRecord({ type: 'revert', outcome: { status: 'failed', message: 'x' } }))).to.not.throw();
  });

  const refused: [string, ReturnType<typeof aChangeRecord>, RegExp][] = [
    ['an intent with an outcome already', anIntentRecord({ outcome: { status: 'applied' } }), /has the outcome pending/],
    ['an intent closing another intent', anIntentRecord({ intentId: 'chg_1_0123abcd' }), /cannot close another intent/],
    ['a change entry left pending', aChangeRecord({ outcome: { status: 'pending' } }), /ledger change entry has an outcome/],
    ['a revert entry left pending', aChangeRecord({ type: 'revert', outcome: { status: 'pending' } }), /ledger revert entry/],
  ];
  for (const [name, record, why] of refused)
    it(`refuses ${name}`, () => {
      expect(() => checkIntentFields(record))
        .to.throw(ValidationError)
        .with.property('message')
        .that.matches(why);
    });

  it('an intent that is not open is a conflict naming it, bounded', () => {
    const e = intentNotOpen('chg_7_0123abcd');
    expect(e).to.be.instanceOf(ConflictError);
    expect(e.message).to.match(/Ledger intent chg_7_0123abcd is not open/);
    const long = intentNotOpen('x'.repeat(10_000));
    expect(long.message.length).to.be.lessThan(200);
  });
});
