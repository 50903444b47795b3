import { expect } from 'chai';
import { formatMode, sanitiseMode } from '../../../domain/uploads/file-mode.js';

describe('upload file modes', () => {
  const cases: [unknown, number][] = [
    ['4755', 0o755], // setuid dropped
    ['2755', 0o755], // setgid dropped
    ['1777', 0o777], // sticky dropped
    ['7777', 0o777],
    ['0644', 0o644],
    ['644', 0o644],
    ['777', 0o777],
    ['0o755', 0o755],
    ['100755', 0o755], // git's tree mode
    ['0100644', 0o644],
    [' 0600 ', 0o600],
    ['0', 0],
    ['abc', 0o644],
    ['', 0o644],
    ['8', 0o644],
    ['-755', 0o644],
    ['0x1ed', 0o644],
    ['75a', 0o644],
    ['12345670', 0o644], // more than 7 digits
    [undefined, 0o644],
    [null, 0o644],
    [755, 0o644], // a JSON number is ambiguous: unparseable
    [{}, 0o644],
  ];
  for (const [input, expected] of cases) {
    it(`${JSON.stringify(input) ?? 'absent'} -> ${formatMode(expected)}`, () => {
      expect(sanitiseMode(input)).to.equal(expected);
    });
  }

  it('formats as four octal digits', () => {
    expect(formatMode(0o644)).to.equal('0644');
    expect(formatMode(0o7)).to.equal('0007');
  });
});
