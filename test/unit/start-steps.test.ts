import { expect } from 'chai';
import path from 'node:path';
import { START_STEPS } from '../../interfaces/main.js';

describe('the server start steps (interfaces/main.ts)', () => {
  it('name modules that exist, so the list cannot rot into a silent no-op, and end with the composition root and the server', () => {
    const from = path.join(__dirname, '..', '..', 'interfaces');
    for (const step of START_STEPS) expect(() => require.resolve(step.startsWith('.') ? path.join(from, step) : step), step).not.to.throw();
    expect(START_STEPS.slice(-1)[0]).to.equal('./http/server.js');
    expect(START_STEPS).to.include('../infrastructure/composition-root.js');
    expect(new Set(START_STEPS).size).to.equal(START_STEPS.length);
  });
});
