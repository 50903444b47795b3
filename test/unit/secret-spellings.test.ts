import { expect } from 'chai';
import { REDACTED, scrubText } from '../../domain/security/scrub-credentials.js';
import { secretSpellings } from '../../domain/security/secret-spellings.js';
import { scrubRecord } from '../../domain/ledger/ledger-scrub.js';

const TOKEN = 'ghp_Zx9+/token=with&odd?chars01';
const b64 = (s: string) => Buffer.from(s).toString('base64');
const b64url = (s: string) => Buffer.from(s).toString('base64url');

describe('known secrets are scrubbed in their encoded spellings too (issue 31 item 7)', () => {
  it('raw, percent-encoded (either hex case), base64 with and without padding, base64url: each is *** entirely', () => {
    const pct = encodeURIComponent(TOKEN);
    for (const spelling of [TOKEN, pct, pct.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()), b64(TOKEN), b64(TOKEN).replace(/=+$/, ''), b64url(TOKEN)]) {
      expect(scrubText(`before ${spelling} after`, [TOKEN]), spelling).to.equal(`before ${REDACTED} after`);
    }
  });

  it('inside a longer base64 or base64url value, wherever the token starts: only a few characters at each end survive, never the token', () => {
    for (const prefix of ['', 'a', 'ab', 'x-access-token:', '{"token":"', 'u:']) {
      for (const suffix of ['', 'z', 'yz', '","exp":1}']) {
        for (const encode of [b64, b64url]) {
          const value = encode(`${prefix}${TOKEN}${suffix}`);
          const out = scrubText(value, [TOKEN]);
          expect(out, `${prefix}|${suffix}`).to.contain(REDACTED);
          // what is left decodes to the prefix and suffix at most (their characters, and one mixed character each side)
          const left = out.replace(REDACTED, '').length;
          expect(left, `${prefix}|${suffix}`).to.be.at.most(Math.ceil((4 * prefix.length) / 3) + Math.ceil((4 * suffix.length) / 3) + 6);
        }
      }
    }
  });

  it('short secrets get no encoded spellings (they would match ordinary words); other text is left alone', () => {
    expect(secretSpellings('abcd1234x')).to.include.members(['abcd1234x', b64('abcd1234x')]);
    expect(secretSpellings('abcdef')).to.deep.equal(['abcdef']);
    expect(scrubText('nothing secret here: aGVsbG8gd29ybGQ=', [TOKEN])).to.equal('nothing secret here: aGVsbG8gd29ybGQ=');
  });

  it('the ledger scrubs the encoded forms from free text and from object fields alike', () => {
    const record = {
      request: `deploy with ${b64(TOKEN)}`,
      object: { data: { blob: b64(`x-access-token:${TOKEN}`) } },
      outcome: { status: 'applied' },
    } as unknown as Parameters<typeof scrubRecord>[0];
    const text = JSON.stringify(scrubRecord(record, [TOKEN]));
    for (const k of [0, 1, 2])
      expect(text).to.not.include(
        Buffer.concat([Buffer.alloc(k), Buffer.from(TOKEN)])
          .toString('base64')
          .slice(4, -4),
      );
    expect(text).to.not.include(b64(TOKEN).slice(0, 12));
  });
});
