import { expect } from 'chai';
import { POD_SECURITY_LEVELS } from '../../../domain/write-guard/pod-security-levels.js';
import { violates, type PodSecurityViolation } from '../../../domain/write-guard/pod-security.js';

describe('Pod Security Standards: the levels', () => {
  it("are the standard's three, loosest first", () => expect(POD_SECURITY_LEVELS).to.deep.equal(['privileged', 'baseline', 'restricted']));

  it('each level forbids what the looser ones forbid (the order is what violates reads)', () => {
    const breaking = (level: 'baseline' | 'restricted'): PodSecurityViolation => ({ level, control: 'x', field: 'f', value: 'v' });
    for (const [i, level] of POD_SECURITY_LEVELS.entries())
      for (const stricter of POD_SECURITY_LEVELS.slice(i))
        for (const v of [breaking('baseline'), breaking('restricted')])
          if (violates(v, level)) expect(violates(v, stricter), `${v.level} at ${level}, ${stricter}`).to.equal(true);
    expect(violates(breaking('baseline'), 'privileged')).to.equal(false);
    expect(violates(breaking('restricted'), 'baseline')).to.equal(false);
    expect(violates(breaking('restricted'), 'restricted')).to.equal(true);
  });
});
