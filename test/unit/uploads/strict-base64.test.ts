import { expect } from 'chai';
import { ValidationError } from '../../../domain/errors.js';
import { base64DecodedSize, base64Problem, decodeStrictBase64 } from '../../../domain/uploads/strict-base64.js';
import { bytesOf } from '../../support/upload-manifests.js';

const PATH = 'dir/file.md';

/** The message for `text`; the decoder refuses it with the same message whenever the length check lets it through. */
function refusal(text: string): string {
  const problem = base64Problem(text, PATH);
  expect(problem, JSON.stringify(text)).to.be.instanceOf(ValidationError);
  let size = -1;
  try {
    size = base64DecodedSize(text, PATH);
  } catch (err) {
    expect((err as Error).message).to.equal(problem!.message);
  }
  if (size >= 0) expect(() => decodeStrictBase64(text, size, Buffer.alloc(size + 8), 4, PATH)).to.throw(ValidationError, problem!.message);
  return problem!.message;
}

function accepted(text: string): Buffer {
  expect(base64Problem(text, PATH)).to.equal(undefined);
  const size = base64DecodedSize(text, PATH);
  const target = Buffer.alloc(size + 8);
  decodeStrictBase64(text, size, target, 4, PATH);
  return target.subarray(4, 4 + size);
}

describe('strict base64', () => {
  it('accepts canonical base64 of every length remainder and gives the decoded size', () => {
    for (let n = 0; n < 40; n++) {
      const bytes = bytesOf(n, n + 7);
      expect(base64DecodedSize(bytes.toString('base64'), PATH)).to.equal(n);
      expect(accepted(bytes.toString('base64')).equals(bytes)).to.equal(true);
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

  it('never decodes loosely: every text node would accept but that is not canonical is refused', () => {
    for (const text of ['QUJD QUJD', 'QUJD\nQUJ=', 'QU-D', 'QU_D', 'QUJDQ===', 'QUJD=QUJ', 'Q\u00e9JD', 'QUJ\u0000']) {
      if (text.length % 4 !== 0) continue;
      refusal(text);
    }
  });

  it('refuses non-ASCII look-alikes and accepts the canonical twins', () => {
    expect(refusal('aGVsbG８=')).to.match(/character "８"/);
    expect(accepted('QQ==').toString()).to.equal('A');
    expect(accepted('QUI=').toString()).to.equal('AB');
    expect(accepted('')).to.have.length(0);
  });
});
