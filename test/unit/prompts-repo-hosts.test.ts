import { expect } from 'chai';
import { ValidationError } from '../../domain/errors.js';
import { nonPublicKindOf } from '../../domain/prompts/ip-literal.js';
import { validateRepoOverride } from '../../domain/prompts/repo-override.js';

function rejection(repo: string): string {
  try {
    validateRepoOverride({ repo });
  } catch (e) {
    expect(e).to.be.instanceOf(ValidationError);
    return (e as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(repo)} to be rejected`);
}

const hostMessage = (host: string, kind: string, url: string) =>
  `Invalid override repoUrl host: ${host} is a ${kind} address, not a public destination this server may fetch prompts from, for ${url}`;

// IANA special-purpose blocks that are not globally reachable, beyond SPEC.md's list: [spelling, normalised host, kind]
const SPECIAL_PURPOSE: [string, string, string][] = [
  ['0.255.255.255', '0.255.255.255', 'unspecified'],
  ['100.127.255.254', '100.127.255.254', 'private'],
  ['0x64.0x40.0.1', '100.64.0.1', 'private'],
  ['192.0.0.8', '192.0.0.8', 'reserved'],
  ['192.0.0.9', '192.0.0.9', 'reserved'], // globally reachable per IANA, refused with the whole /24 (documented)
  ['192.0.2.10', '192.0.2.10', 'documentation'],
  ['3221225994', '192.0.2.10', 'documentation'],
  ['198.51.100.7', '198.51.100.7', 'documentation'],
  ['0306.063.0144.07', '198.51.100.7', 'documentation'],
  ['203.0.113.200', '203.0.113.200', 'documentation'],
  ['192.88.99.1', '192.88.99.1', 'reserved'],
  ['198.18.0.1', '198.18.0.1', 'reserved'],
  ['198.19.255.255', '198.19.255.255', 'reserved'],
  ['240.0.0.1', '240.0.0.1', 'reserved'],
  ['0xf0000001', '240.0.0.1', 'reserved'],
  ['255.255.255.254', '255.255.255.254', 'reserved'],
  ['255.255.255.255.', '255.255.255.255', 'broadcast'],
  ['239.255.255.250', '239.255.255.250', 'multicast'],
  ['[::]', '[::]', 'unspecified'],
  ['[::1]', '[::1]', 'loopback'],
  ['[::8.8.8.8]', '[::808:808]', 'reserved'], // IPv4-compatible, deprecated, never routed
  ['[::ffff:0:8.8.8.8]', '[::ffff:0:808:808]', 'reserved'],
  ['[::ffff:100.64.1.1]', '[::ffff:6440:101]', 'private'],
  ['[::ffff:192.0.2.1]', '[::ffff:c000:201]', 'documentation'],
  ['[64:ff9b::10.0.0.1]', '[64:ff9b::a00:1]', 'private'],
  ['[64:ff9b::a9fe:a9fe]', '[64:ff9b::a9fe:a9fe]', 'link-local'],
  ['[64:ff9b:1::8.8.8.8]', '[64:ff9b:1::808:808]', 'reserved'],
  ['[100::1]', '[100::1]', 'reserved'],
  ['[100:0:0:1::1]', '[100:0:0:1::1]', 'reserved'],
  ['[2001::1]', '[2001::1]', 'reserved'], // Teredo
  ['[2001:0:4136:e378:8000:63bf:3fff:fdd2]', '[2001:0:4136:e378:8000:63bf:3fff:fdd2]', 'reserved'],
  ['[2001:2::1]', '[2001:2::1]', 'reserved'], // benchmarking
  ['[2001:10::1]', '[2001:10::1]', 'reserved'], // deprecated ORCHID
  ['[2001:1ff::1]', '[2001:1ff::1]', 'reserved'],
  ['[2001:1::4]', '[2001:1::4]', 'reserved'],
  ['[2001:db8::1]', '[2001:db8::1]', 'documentation'],
  ['[2001:DB8:FFFF::]', '[2001:db8:ffff::]', 'documentation'],
  ['[3fff::1]', '[3fff::1]', 'documentation'],
  ['[3fff:fff::1]', '[3fff:fff::1]', 'documentation'],
  ['[2002:a00:1::1]', '[2002:a00:1::1]', 'private'], // 6to4 of 10.0.0.1
  ['[2002:c0a8:101::]', '[2002:c0a8:101::]', 'private'],
  ['[2002:a9fe:a9fe::1]', '[2002:a9fe:a9fe::1]', 'link-local'],
  ['[2002:c000:0201::1]', '[2002:c000:201::1]', 'documentation'],
  ['[5f00::1]', '[5f00::1]', 'reserved'],
  ['[fe80::1]', '[fe80::1]', 'link-local'],
  ['[fdff::1]', '[fdff::1]', 'unique-local'],
  ['[ff0e::1]', '[ff0e::1]', 'multicast'],
  ['[4000::1]', '[4000::1]', 'reserved'], // outside global unicast 2000::/3
  ['[1::1]', '[1::1]', 'reserved'],
];

// Hosts that WHATWG and git/curl (or a gate in front of svc) could read differently
const AMBIGUOUS: [string, RegExp][] = [
  ['https://github.com\\@evil.example/o/r.git', /backslash/],
  ['https://evil.example\\.github.com/o/r.git', /backslash/],
  ['https://evil.example#@github.com/o/r.git', /an "@" follows a "\?" or "#"/],
  ['https://evil.example?@github.com/o/r.git', /an "@" follows a "\?" or "#"/],
  ['https://user:p@ss@github.com/o/r.git', /more than one "@"/],
  ['https://github.com@evil.example@github.com/o/r.git', /more than one "@"/],
  ['https://git%68ub.com/o/r.git', /percent-encoded/],
  ['https://github%2ecom/o/r.git', /percent-encoded/],
  ['https://ｇithub.com/o/r.git', /non-ASCII/],
  ['https://gith\u0075b.com\u3002evil/o/r.git', /non-ASCII/],
  ['https://faß.example/o/r.git', /non-ASCII/],
  ['https://xn--fa-hia.example\u200b/o/r.git', /non-ASCII/],
  ['https://github.com/o /r.git', /space, tab, line break/],
  ['https://git\thub.com/o/r.git', /space, tab, line break/],
  ['https://git\nhub.com/o/r.git', /space, tab, line break/],
  ['https://github.com\r\n/o/r.git', /space, tab, line break/],
  [' https://github.com/o/r.git', /space, tab, line break/],
  ['https://github.com/o/r.git\u0000', /control character/],
  ['http:github.com/o/r', /does not start with http:\/\/ or https:\/\//],
  ['https:/github.com/o/r', /does not start with http:\/\//],
  ['https:///github.com/o/r', /does not start with http:\/\//],
  ['https://134744072/r.git', /IPv4 address not written as four decimal numbers/], // 8.8.8.8
  ['https://0x8.0x8.0x8.0x8/r.git', /IPv4 address not written/],
  ['https://010.010.010.010/r.git', /IPv4 address not written/], // octal 8.8.8.8, decimal 10.10.10.10 elsewhere
  ['https://0127.0.0.1/r.git', /IPv4 address not written/], // octal 87.0.0.1, decimal 127.0.0.1 elsewhere
  ['https://8.8.8.8./r.git', /IPv4 address not written/],
  ['https://github..com/o/r.git', /empty label/],
  ['https://.github.com/o/r.git', /empty label/],
  ['https://github.com../o/r.git', /empty label/],
];

const ACCEPTED = [
  'https://github.com/o/r.git',
  'https://github.com./o/r.git',
  'https://user:p%40ss@github.com/o/r.git',
  'https://x-access-token:ghp_abc@github.com/o/r.git',
  'https://github.com:443@gitlab.example/o/r.git',
  'https://git.example:8443/o/r.git?ref=main',
  'https://my_host.example/o/r.git',
  'https://xn--fa-hia.example/o/r.git',
  'https://0x7f.example.com/r.git',
  'https://1password.example/r.git',
  'https://8.8.8.8/r.git',
  'https://[2001:4860:4860::8888]/r.git',
  'https://[2001:4860:4860:0:0:0:0:8888]/r.git',
  'https://[::ffff:8.8.8.8]/r.git',
  'https://[64:ff9b::8.8.8.8]/r.git',
  'https://[2002:808:808::1]/r.git',
  'https://[2001:3::1]/r.git',
  'https://[2001:4:112::1]/r.git',
  'https://[2001:20::1]/r.git',
  'https://[2001:1::1]/r.git',
  'https://[2606:4700::1111]/r.git',
  'https://[3fff:1000::1]/r.git',
  'https://192.0.3.1/r.git',
  'https://100.128.0.1/r.git',
  'https://198.20.0.1/r.git',
  'https://223.255.255.255/r.git',
];

describe('repo override: special-purpose ranges and ambiguous spellings', () => {
  describe('every IANA special-purpose block that is not globally reachable is refused', () => {
    for (const [spelling, host, kind] of SPECIAL_PURPOSE) {
      it(`${spelling} -> ${kind}`, () => {
        const url = `https://${spelling}/org/prompts.git`;
        expect(rejection(url)).to.equal(hostMessage(host, kind, url));
      });
    }

    it('classifies bare resolver answers too (no brackets, zone ids)', () => {
      expect(nonPublicKindOf('::1')).to.equal('loopback');
      expect(nonPublicKindOf('fe80::1%eth0')).to.equal('link-local');
      expect(nonPublicKindOf('::ffff:10.0.0.1')).to.equal('private');
      expect(nonPublicKindOf('2606:4700::1111')).to.equal(undefined);
      expect(nonPublicKindOf('93.184.215.14')).to.equal(undefined);
    });
  });

  describe('a host parsers could read differently is 400, without echoing the URL', () => {
    for (const [repo, reason] of AMBIGUOUS) {
      it(`refuses ${JSON.stringify(repo)}`, () => {
        const message = rejection(repo);
        expect(message).to.match(/^Invalid override repoUrl: its host would read differently to other URL parsers \(git, curl\): /);
        expect(message).to.match(reason);
        expect(message).to.not.contain('p@ss').and.not.contain('evil.example');
      });
    }

    it("keeps the IP rule first: a non-public address in an odd spelling still gets SPEC.md's message", () => {
      expect(rejection('https://0x7f.1/r')).to.equal(hostMessage('127.0.0.1', 'loopback', 'https://0x7f.1/r'));
      expect(rejection('https://user:p@ss@10.0.0.1/r')).to.contain('10.0.0.1 is a private address');
      expect(rejection('http:\\\\192.168.0.1\\r')).to.contain('192.168.0.1 is a private address');
    });
  });

  describe('plain spellings are accepted', () => {
    for (const url of ACCEPTED) {
      it(`accepts ${url}`, () => {
        expect(validateRepoOverride({ repo: url })).to.not.equal(undefined);
      });
    }
  });
});
