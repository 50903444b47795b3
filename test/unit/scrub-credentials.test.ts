import { expect } from 'chai';
import { scrubText, scrubUrl } from '../../domain/security/scrub-credentials.js';

describe('credential scrubbing', () => {
  const cases: Array<[string, string]> = [
    ['https://github.com/org/repo.git', 'https://github.com/org/repo.git'],
    ['https://user:pa55@github.com/org/repo', 'https://***:***@github.com/org/repo'],
    ['https://ghp_tokenonly@github.com/o/r', 'https://***:***@github.com/o/r'],
    ['http://a:b@c@host.example/x?y=1', 'http://***:***@host.example/x?y=1'],
    ['https://h/r?token=abc&ref=main', 'https://h/r?token=***&ref=main'],
    ['https://h/r?access_token=abc&X-Amz-Signature=s&private-token=p', 'https://h/r?access_token=***&X-Amz-Signature=***&private-token=***'],
    ['https://h/r?api_key=k#frag?token=x', 'https://h/r?api_key=***#frag?token=x'],
    ['HTTPS://U:P@H/r', 'HTTPS://***:***@H/r'],
    ['https:\\\\u:p@h/r', 'https:\\\\***:***@h/r'],
    // spellings WHATWG parsing accepts as userinfo
    ['http:u:p@h/r', 'http:***:***@h/r'],
    ['http:/u:p@h/r', 'http:/***:***@h/r'],
    ['https:///u:p@h/r', 'https:///***:***@h/r'],
    [' \thttps://u:p@h/r\n', 'https://***:***@h/r'],
    ['ht\ntps://u:p@h/r', 'https://***:***@h/r'],
    ['https://u:p\t@h/r', 'https://***:***@h/r'],
  ];
  for (const [input, expected] of cases) {
    it(`scrubs ${input}`, () => {
      expect(scrubUrl(input)).to.equal(expected);
      expect(scrubUrl(input)).to.equal(scrubUrl(input));
    });
  }

  it('scrubs URLs inside text and known secret values', () => {
    const text = "fatal: could not read from 'https://bob:hunter22@git.example.com/x.git': token ghp_CANARY123 rejected";
    const out = scrubText(text, ['ghp_CANARY123']);
    expect(out).to.equal("fatal: could not read from 'https://***:***@git.example.com/x.git': token *** rejected");
  });
});
