import { expect } from 'chai';
import { RULE_TABLE } from '../../domain/write-guard/rules/rule-table.js';
import { OBJECT_CASES } from '../support/guard-rule-cases-kinds.js';
import { POD_CASES } from '../support/guard-rule-cases-pods.js';
import { allowed, judge } from '../support/write-guard-kit.js';

/**
 * Every rule of the table, both ways: a change the rule rates at its safe
 * level (or, for a rule with no safe value, the change it claims and makes
 * high with its reason), and one it does not lower (an unsafe value, or the
 * same change where the rule does not apply). The last test fails when a
 * rule has no case either way.
 */
const CASES = [...OBJECT_CASES, ...POD_CASES];

describe('write guard: every rule of the table, both ways', () => {
  for (const c of CASES)
    it(`${c.rule}: ${c.name} is ${c.risk}`, () => {
      const v = allowed(judge(c.judged));
      const reasons = v.riskReasons.join('; ');
      expect(v.risk, reasons).to.equal(c.risk);
      if (c.reason) expect(reasons).to.match(c.reason);
      if (c.absent) expect(reasons).to.not.match(c.absent);
    });

  it('every rule has a case where it applies and one where it does not lower the risk', () => {
    const missing = RULE_TABLE.filter((r) => {
      const cases = CASES.filter((c) => c.rule === r.id);
      return new Set(cases.map((c) => c.risk)).size < 2 && !cases.some((c) => c.absent);
    }).map((r) => r.id);
    expect(missing).to.deep.equal([]);
    expect(CASES.filter((c) => !RULE_TABLE.some((r) => r.id === c.rule)).map((c) => c.rule)).to.deep.equal([]);
  });
});
