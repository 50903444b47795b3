import { expect } from 'chai';
import { ambiguousHostReason } from '../../../domain/prompts/repo-url-spelling.js';

const reason = (raw: string) => ambiguousHostReason(raw, new URL(raw));

describe('prompts: a repo URL whose host reads one way only', () => {
  const plain = [
    'https://github.com/acme/prompts.git',
    'https://git.example:8443/acme/prompts',
    'http://10.0.0.7/repo.git',
    'https://user:p%40ss@git.example/repo',
    'https://[::1]:3000/repo',
    'https://git.example./repo',
    'https://git.example',
  ];
  for (const raw of plain) it(`accepts ${raw}`, () => expect(reason(raw)).to.equal(undefined));

  const ambiguous: [string, RegExp][] = [
    ['https://git.example/re po', /space, tab/],
    ['https://git.exa\tmple/repo', /space, tab/],
    ['https://git.example\\@evil.example/repo', /backslash/],
    ['https:/git.example/repo', /does not start with http/],
    ['https:///git.example/repo', /does not start with http/],
    ['https://git.example?@evil.example/', /follows a "\?" or "#"/],
    ['https://git.example#@evil.example/', /follows a "\?" or "#"/],
    ['https://a@b@evil.example/repo', /more than one "@"/],
    ['https://git.ex%61mple/repo', /percent-encoded/],
    ['https://gіthub.com/repo', /non-ASCII/],
    ['https://0x7f.1/repo', /IPv4 address not written as four decimal/],
    ['https://2130706433/repo', /IPv4 address/],
    ['https://127.1/repo', /IPv4 address/],
    ['https://0177.0.0.1/repo', /IPv4 address/],
  ];
  for (const [raw, why] of ambiguous) it(`refuses ${JSON.stringify(raw)}`, () => expect(reason(raw)).to.match(why));

  it('an upper-case host reads the same to every parser', () => expect(reason('https://GIT.example/repo')).to.equal(undefined));
});
