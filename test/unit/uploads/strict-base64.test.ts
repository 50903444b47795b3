import { expect } from 'chai';
import { ValidationError } from '../../../domain/errors.js';
import { checkStrictBase64 } from '../../../domain/uploads/strict-base64.js';
import { bytesOf } from '../../support/upload-manifests.js';

function refusal(text: string): string {
  try {
    checkStrictBase64(text, 'dir/file.md');
  } catch (err) {
    expect(err).to.be.instanceOf(ValidationError);
    return (err as ValidationError).message;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be refused`);
}

describe('strict base64', () => {
  it('accepts canonical base64 of every length remainder and gives the decoded size', () => {
    for (let n = 0; n < 40; n++) {
      const b64 = bytesOf(n, n + 7).toString('base64');
      expect(checkStrictBase64(b64, 'f')).to.equal(n);
    }
  });

  const garbage: [string, RegExp][] = [
    ['abc', /length 3 is not a multiple of 4/],
    ['aGVsbG8', /not a multiple of 4 \(padding with = is required\)/],
    ['aGVs bG8=', /not a multiple of 4/],
    ['aGVsbG8gd29y\nbG=', /character "\\n" at offset 12 is not in the base64 alphabet/],
    ['aGVs\r\nbG8=', /not a multiple of 4|character "\\r"/],
    ['aGV-bG8_', /character "-" at offset 3/],
    ['aGVsbG8*', /character "\*" at offset 7/],
    ['a===', /more than two = padding/],
    ['====', /more than two = padding/],
    ['aG=sbG8=', /character "=" at offset 2/],
    ['aGVsbG8=aGVsbG8=', /character "=" at offset 7/],
    ['QR==', /non-zero padding bits/], // 'A' is QQ==
    ['QUJ=', /non-zero padding bits/], // 'AB' is QUI=
  ];
  for (const [text, message] of garbage) {
    it(`refuses ${JSON.stringify(text)}`, () => {
      const m = refusal(text);
      expect(m).to.match(/^Invalid base64 content in file dir\/file\.md: /);
      expect(m).to.match(message);
    });
  }

  it('refuses non-ASCII look-alikes and accepts the canonical twins', () => {
    expect(refusal('aGVsbG８=')).to.match(/character "８"/);
    expect(checkStrictBase64('QQ==', 'f')).to.equal(1);
    expect(checkStrictBase64('QUI=', 'f')).to.equal(2);
    expect(checkStrictBase64('', 'f')).to.equal(0);
  });
});
