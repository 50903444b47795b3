import { expect } from 'chai';
import { refusalMetric } from '../../../domain/write-guard/refusal-metric.js';

describe("write guard: a refusal's metrics reason", () => {
  const table: [string, string | undefined][] = [
    ['OutsideWriteScope', 'allow-list'],
    ['OutsideSolution', 'allow-list'],
    ['InvalidTarget', 'allow-list'],
    ['UnsafePatch', 'allow-list'],
    ['ImageRegistry', 'allow-list'],
    ['PolicyViolation', 'policy'],
    ['PoliciesUnreadable', 'policy'],
    // the API server's own refusals are not svc's: no metric
    ['Forbidden', undefined],
    ['Invalid', undefined],
    ['Conflict', undefined],
    // codes are exact: another spelling is not svc's code
    ['outsidewritescope', undefined],
    ['PolicyViolations', undefined],
    ['', undefined],
  ];
  for (const [code, reason] of table) it(`${code || '(empty)'}: ${String(reason)}`, () => expect(refusalMetric(code)).to.equal(reason));
});
