import { expect } from 'chai';
import { StreamSlots } from '../../../application/runs/stream-slots.js';
import { LimitReachedError } from '../../../domain/errors.js';

describe('application/runs/stream-slots: open event streams per caller', () => {
  it('refuses a caller past the limit with 429, leaving other callers their own slots', () => {
    const slots = new StreamSlots(2);
    slots.take('ann');
    slots.take('ann');
    expect(() => slots.take('ann'))
      .to.throw(LimitReachedError)
      .with.property('message')
      .that.contains('At most 2 event streams');
    expect(() => slots.take('bob')).to.not.throw();
    expect(slots.count('ann')).to.equal(2);
  });

  it('frees a slot on release, once however often it is released, and forgets a caller with none open', () => {
    const slots = new StreamSlots(1);
    const release = slots.take('ann');
    release();
    release();
    expect(slots.count('ann')).to.equal(0);
    const again = slots.take('ann');
    const other = new StreamSlots(2);
    const first = other.take('ann');
    other.take('ann');
    first();
    first();
    expect(other.count('ann')).to.equal(1);
    again();
    expect((slots as unknown as { open: Map<string, number> }).open.size).to.equal(0);
  });
});
