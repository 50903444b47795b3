import assert from 'node:assert';
import * as chai from 'chai';
import type { Context } from 'mocha';
import { Test } from 'supertest';

/**
 * Counts the assertions each test makes: chai's (every `expect(...)`
 * assertion goes through `Assertion.prototype.assert`), supertest's
 * `.expect(...)` and node:assert's. A test that passes having asserted
 * nothing cannot fail, so the run fails at its end naming each one
 * (`SVC_TEST_ASSERTIONS=report` lists them on stderr instead). Registered as root hooks by setup.ts.
 */
let count = 0;
const counted = <F extends (...args: never[]) => unknown>(fn: F): F =>
  function (this: unknown, ...args: Parameters<F>) {
    count++;
    return fn.apply(this, args);
  } as F;

const proto = chai.Assertion.prototype as unknown as { assert: (...args: never[]) => unknown };
proto.assert = counted(proto.assert);
const test = Test.prototype as unknown as { expect: (...args: never[]) => unknown };
test.expect = counted(test.expect);
const nodeAssert = assert as unknown as Record<string, unknown>;
for (const name of ['ok', 'equal', 'strictEqual', 'deepEqual', 'deepStrictEqual', 'notEqual', 'notStrictEqual', 'throws', 'rejects', 'match', 'fail'])
  if (typeof nodeAssert[name] === 'function') nodeAssert[name] = counted(nodeAssert[name] as (...args: never[]) => unknown);

const mode = process.env.SVC_TEST_ASSERTIONS ?? 'enforce';
const unasserted: string[] = [];

export const assertionHooks = {
  beforeEach(): void {
    count = 0;
  },
  afterEach(this: Context): void {
    const t = this.currentTest;
    if (!t || t.state !== 'passed' || count > 0 || mode === 'off') return;
    unasserted.push(t.fullTitle());
  },
  // One failure at the end naming every such test: a failing afterEach hook would skip the rest of its suite.
  afterAll(): void {
    if (!unasserted.length) return;
    const list = `${unasserted.length} test(s) passed without asserting anything (no expect, supertest .expect or node:assert), so they cannot fail:\n${unasserted.map((t) => `  - ${t}`).join('\n')}`;
    if (mode === 'report') process.stderr.write(`\n${list}\n`);
    else throw new Error(list);
  },
};
