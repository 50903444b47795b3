import { expect } from 'chai';
import { scrubText, scrubUrl } from '../../domain/security/scrub-credentials.js';

/** The regex scrubText used to apply; kept as the oracle for the linear scan. */
const URL_IN_TEXT = /[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^\s'"<>`]+/g;
const oracle = (text: string) => text.replace(URL_IN_TEXT, (u) => scrubUrl(u));

/** A small deterministic PRNG (mulberry32) so a failure is reproducible. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('scrubText URL scan', () => {
  it('finds exactly the URLs the regex finds, on 20000 random texts', () => {
    const alphabet = ['a', 'Z', '9', '+', '.', '-', ':', '/', '//', '://', '@', '?', '=', '&', '#', ' ', '\n', "'", '"', '<', '`', 'token', 'u:p@', 'https'];
    const random = prng(42);
    for (let i = 0; i < 20000; i++) {
      let text = '';
      const parts = 1 + Math.floor(random() * 14);
      for (let j = 0; j < parts; j++) text += alphabet[Math.floor(random() * alphabet.length)];
      expect(scrubText(text), JSON.stringify(text)).to.equal(oracle(text));
    }
  });

  it('keeps the scrubbing of URLs in prose', () => {
    const text = 'clone https://bob:pw@h.example/r.git?token=t failed; see 1://x, ftp://f/ok and "s3+x.y-z://k:v@b/o"';
    expect(scrubText(text)).to.equal(oracle(text));
    expect(scrubText(text)).to.equal('clone https://***:***@h.example/r.git?token=*** failed; see 1://x, ftp://f/ok and "s3+x.y-z://***:***@b/o"');
  });

  it('handles a megabyte of letters and digits without backtracking (the regex took hours here)', () => {
    const blob = 'A1b2'.repeat(250_000);
    expect(scrubText(`${blob} https://u:p@h/x`)).to.equal(`${blob} https://***:***@h/x`);
    expect(scrubText(`${blob}://u:p@h/x`)).to.equal(`${blob}://***:***@h/x`);
  });
});
