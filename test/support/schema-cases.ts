import { expect } from 'chai';
import type { z } from 'zod';

/** An edit of a copy of a valid value, named for the test. */
export type Edit<T> = [name: string, edit: (value: T) => void];

/**
 * The unit tests of a tool's output schema: a valid value parses, each
 * accepted edit of it still parses, and each rejected edit (a field a
 * client relies on missing, a value outside what SPEC.md allows) does not.
 */
export function schemaCases<T>(schema: z.ZodType, valid: () => T, accepted: readonly Edit<T>[], rejected: readonly Edit<T>[]): void {
  const edited = (edit: (value: T) => void) => {
    const value = structuredClone(valid());
    edit(value);
    return schema.safeParse(value);
  };
  it('a valid value parses', () => expect(schema.safeParse(valid()).success).to.equal(true));
  for (const [name, edit] of accepted) it(`accepts ${name}`, () => expect(edited(edit).error?.message).to.equal(undefined));
  for (const [name, edit] of rejected) it(`rejects ${name}`, () => expect(edited(edit).success).to.equal(false));
}
