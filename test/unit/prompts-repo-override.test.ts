import { expect } from 'chai';
import { ValidationError } from '../../domain/errors.js';
import { validateRepoOverride, type RepoOverrideInput } from '../../domain/prompts/repo-override.js';

function rejection(input: RepoOverrideInput): string {
  try {
    validateRepoOverride(input);
  } catch (e) {
    expect(e).to.be.instanceOf(ValidationError);
    return (e as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(input)} to be rejected`);
}

const hostMessage = (host: string, kind: string, url: string) =>
  `Invalid override repoUrl host: ${host} is a ${kind} address, not a public destination this server may fetch prompts from, for ${url}`;

// [spelling, normalised host, kind]
const NON_PUBLIC: [string, string, string][] = [
  ['127.0.0.1', '127.0.0.1', 'loopback'],
  ['127.1', '127.0.0.1', 'loopback'],
  ['127.0.1', '127.0.0.1', 'loopback'],
  ['2130706433', '127.0.0.1', 'loopback'],
  ['0x7f000001', '127.0.0.1', 'loopback'],
  ['0x7F.1', '127.0.0.1', 'loopback'],
  ['0x7F.0x00.0x00.0x01', '127.0.0.1', 'loopback'],
  ['0177.0.0.1', '127.0.0.1', 'loopback'],
  ['0177.1', '127.0.0.1', 'loopback'],
  ['017700000001', '127.0.0.1', 'loopback'],
  ['127.000.000.001', '127.0.0.1', 'loopback'],
  ['127.0.0.1.', '127.0.0.1', 'loopback'],
  ['127.0.0.1..', '127.0.0.1..', 'loopback'],
  ['%31%32%37.0.0.1', '127.0.0.1', 'loopback'],
  ['１２７.０.０.１', '127.0.0.1', 'loopback'],
  ['127.255.255.254', '127.255.255.254', 'loopback'],
  ['[::1]', '[::1]', 'loopback'],
  ['[0:0:0:0:0:0:0:1]', '[::1]', 'loopback'],
  ['[0000::0001]', '[::1]', 'loopback'],
  ['[::ffff:127.0.0.1]', '[::ffff:7f00:1]', 'loopback'],
  ['[::ffff:7f00:1]', '[::ffff:7f00:1]', 'loopback'],
  ['[0:0:0:0:0:ffff:127.0.0.1]', '[::ffff:7f00:1]', 'loopback'],
  ['[::127.0.0.1]', '[::7f00:1]', 'loopback'],
  ['[::ffff:0:127.0.0.1]', '[::ffff:0:7f00:1]', 'loopback'],
  ['[64:ff9b::127.0.0.1]', '[64:ff9b::7f00:1]', 'loopback'],
  ['[2002:7f00:1::1]', '[2002:7f00:1::1]', 'loopback'],
  ['10.0.0.1', '10.0.0.1', 'private'],
  ['10.1', '10.0.0.1', 'private'],
  ['167772161', '10.0.0.1', 'private'],
  ['0xa000001', '10.0.0.1', 'private'],
  ['012.0.0.1', '10.0.0.1', 'private'],
  ['172.16.0.1', '172.16.0.1', 'private'],
  ['172.31.255.255', '172.31.255.255', 'private'],
  ['192.168.1.1', '192.168.1.1', 'private'],
  ['3232235777', '192.168.1.1', 'private'],
  ['0xc0.0xa8.1.1', '192.168.1.1', 'private'],
  ['100.64.0.1', '100.64.0.1', 'private'],
  ['[::ffff:192.168.1.1]', '[::ffff:c0a8:101]', 'private'],
  ['[::ffff:a00:1]', '[::ffff:a00:1]', 'private'],
  ['[fec0::1]', '[fec0::1]', 'private'],
  ['169.254.169.254', '169.254.169.254', 'link-local'],
  ['2852039166', '169.254.169.254', 'link-local'],
  ['0xa9fea9fe', '169.254.169.254', 'link-local'],
  ['0251.0376.0251.0376', '169.254.169.254', 'link-local'],
  ['169.254.43518', '169.254.169.254', 'link-local'],
  ['[fe80::1]', '[fe80::1]', 'link-local'],
  ['[febf:ffff::1]', '[febf:ffff::1]', 'link-local'],
  ['[::ffff:169.254.169.254]', '[::ffff:a9fe:a9fe]', 'link-local'],
  ['[fc00::1]', '[fc00::1]', 'unique-local'],
  ['[fd12:3456:789a::1]', '[fd12:3456:789a::1]', 'unique-local'],
  ['[FDFF:FFFF::]', '[fdff:ffff::]', 'unique-local'],
  ['0.0.0.0', '0.0.0.0', 'unspecified'],
  ['0', '0.0.0.0', 'unspecified'],
  ['0x0', '0.0.0.0', 'unspecified'],
  ['0.0.0.0.', '0.0.0.0', 'unspecified'],
  ['0.1.2.3', '0.1.2.3', 'unspecified'],
  ['[::]', '[::]', 'unspecified'],
  ['[0:0:0:0:0:0:0:0]', '[::]', 'unspecified'],
  ['[::ffff:0.0.0.0]', '[::ffff:0:0]', 'unspecified'],
  ['255.255.255.255', '255.255.255.255', 'broadcast'],
  ['4294967295', '255.255.255.255', 'broadcast'],
  ['0xffffffff', '255.255.255.255', 'broadcast'],
  ['[::ffff:255.255.255.255]', '[::ffff:ffff:ffff]', 'broadcast'],
  ['224.0.0.1', '224.0.0.1', 'multicast'],
  ['[ff02::1]', '[ff02::1]', 'multicast'],
];

describe('repo override validation', () => {
  describe('host: non-public IP literals are refused in every spelling', () => {
    for (const [spelling, host, kind] of NON_PUBLIC) {
      for (const scheme of ['http', 'https']) {
        it(`${scheme}://${spelling} -> ${kind}`, () => {
          const url = `${scheme}://${spelling}/org/prompts.git`;
          expect(rejection({ repo: url })).to.equal(hostMessage(host, kind, url));
        });
      }
    }

    it('names the kind with a port, userinfo (scrubbed) and odd scheme spellings', () => {
      expect(rejection({ repo: 'https://user:s3cret-pass@127.0.0.1:8443/r.git' })).to.equal(
        hostMessage('127.0.0.1', 'loopback', 'https://***:***@127.0.0.1:8443/r.git'),
      );
      expect(rejection({ repo: 'HTTP://127.0.0.1/r' })).to.equal(hostMessage('127.0.0.1', 'loopback', 'HTTP://127.0.0.1/r'));
      expect(rejection({ repo: 'http:127.0.0.1/r' })).to.equal(hostMessage('127.0.0.1', 'loopback', 'http:127.0.0.1/r'));
      expect(rejection({ repo: 'http:/127.0.0.1/r' })).to.equal(hostMessage('127.0.0.1', 'loopback', 'http:/127.0.0.1/r'));
      expect(rejection({ repo: 'http:\\\\127.0.0.1\\r' })).to.equal(hostMessage('127.0.0.1', 'loopback', 'http:\\\\127.0.0.1\\r'));
      expect(rejection({ repo: ' http://127.0.0.1/r' })).to.contain('127.0.0.1 is a loopback address');
      expect(rejection({ repo: 'http://127.0.0.1\t/r' })).to.contain('127.0.0.1 is a loopback address');
    });

    it('is not fooled by an IP in userinfo or fragment: the real host decides', () => {
      expect(validateRepoOverride({ repo: 'https://10.0.0.1:80@github.com/org/r.git' })!.host).to.equal('github.com');
      expect(rejection({ repo: 'https://github.com@127.0.0.1/org/r.git' })).to.contain('127.0.0.1 is a loopback address');
    });

    const PUBLIC = [
      'https://github.com/org/prompts.git',
      'http://localhost:3000/org/prompts.git',
      'https://127.0.0.1.nip.io/r.git',
      'https://0x7f.example.com/r.git',
      'https://8.8.8.8/r.git',
      'https://172.32.0.1/r.git',
      'https://192.169.0.1/r.git',
      'https://100.128.0.1/r.git',
      'https://[2001:4860:4860::8888]/r.git',
      'https://[::ffff:8.8.8.8]/r.git',
      'https://[2606:4700::1111]/r.git',
    ];
    for (const url of PUBLIC) {
      it(`accepts ${url} (hostnames are never resolved)`, () => {
        expect(validateRepoOverride({ repo: url })).to.not.equal(undefined);
      });
    }
  });

  describe('scheme', () => {
    const CASES: [string, string, string][] = [
      ['ftp://github.com/org/r.git', 'ftp', 'ftp://github.com/org/r.git'],
      ['file:///etc/passwd', 'file', 'file:///etc/passwd'],
      ['ssh://git@github.com/org/r.git', 'ssh', 'ssh://***:***@github.com/org/r.git'],
      ['git://github.com/org/r.git', 'git', 'git://github.com/org/r.git'],
      ['javascript:alert(1)', 'javascript', 'javascript:alert(1)'],
      ['data:text/plain,hello', 'data', 'data:text/plain,hello'],
      ['ftp://user:hunter22@example.com/r', 'ftp', 'ftp://***:***@example.com/r'],
      ['ext::sh -c touch% /tmp/pwned', 'ext', 'ext::sh -c touch% /tmp/pwned'],
    ];
    for (const [url, scheme, shown] of CASES) {
      it(`refuses ${scheme}`, () => {
        expect(rejection({ repo: url })).to.equal(`Invalid override repoUrl scheme: ${scheme} (only http and https are allowed) for ${shown}`);
      });
    }

    it('refuses something that is not a URL, without echoing it (it may hold a credential)', () => {
      expect(rejection({ repo: 'ghp_secret1234@github.com:org/repo.git' })).to.equal(
        'Invalid override repoUrl: not an absolute http(s) URL (expected http(s)://host/path)',
      );
      expect(rejection({ repo: 'github.com/org/repo' })).to.match(/^Invalid override repoUrl: not an absolute/);
    });
  });

  describe('path', () => {
    const ESCAPES = ['..', '../', '../x', '../../etc', 'a/../..', 'a/../../b', './..', 'x/./../..', '..\\x', 'a\\..\\..\\b', 'a/b/../../../c', '..//..'];
    for (const p of ESCAPES) {
      it(`refuses ${JSON.stringify(p)} as escaping`, () => {
        expect(rejection({ repo: 'https://github.com/o/r', path: p })).to.equal('Invalid override subPath: relative path cannot escape target directory');
      });
    }
    const ABSOLUTE = ['/', '/etc', '/etc/passwd', '\\etc', '\\\\server\\share', 'C:\\Windows', 'c:/x', '//double', '/..'];
    for (const p of ABSOLUTE) {
      it(`refuses ${JSON.stringify(p)} as absolute`, () => {
        expect(rejection({ repo: 'https://github.com/o/r', path: p })).to.equal('Invalid override subPath: relative path cannot be absolute');
      });
    }
    for (const p of ['a\0b', '\0', '../\0', 'prompts\0/../..']) {
      it(`refuses ${JSON.stringify(p)} for its null byte`, () => {
        expect(rejection({ repo: 'https://github.com/o/r', path: p })).to.equal('Invalid override subPath: contains null byte');
      });
    }
    const SAFE: [string, string][] = [
      ['', ''],
      ['.', ''],
      ['prompts', 'prompts'],
      ['a/b/', 'a/b'],
      ['./prompts', 'prompts'],
      ['a/../b', 'b'],
      ['a/..', ''],
      ['...', '...'],
      ['..a/a..', '..a/a..'],
      ['a\\b', 'a/b'],
      ['%2e%2e', '%2e%2e'],
    ];
    for (const [p, normal] of SAFE) {
      it(`accepts ${JSON.stringify(p)} as ${JSON.stringify(normal)}`, () => {
        expect(validateRepoOverride({ repo: 'https://github.com/o/r', path: p })!.subPath).to.equal(normal);
      });
    }
  });

  describe('branch', () => {
    for (const b of ['main', 'feature/x-1', 'release-1.2', 'v1_2', 'a.b/c_d-e']) {
      it(`accepts ${b}`, () => {
        expect(validateRepoOverride({ repo: 'https://github.com/o/r', branch: b })!.branch).to.equal(b);
      });
    }
    for (const b of ['main;rm -rf /', 'a b', 'x~1', 'x^', 'x:y', '$(id)', 'a\nb', 'feature@{1}', '*', 'ünïcode', 'a\0b', 'x'.repeat(256)]) {
      it(`refuses ${JSON.stringify(b.slice(0, 20))}`, () => {
        expect(rejection({ repo: 'https://github.com/o/r', branch: b })).to.equal(`Invalid override branch name: ${b}`);
      });
    }
    it('defaults to main', () => {
      expect(validateRepoOverride({ repo: 'https://github.com/o/r' })!.branch).to.equal('main');
    });
  });

  describe('source and absence', () => {
    it('returns undefined without repo, but still refuses a bad path or branch', () => {
      expect(validateRepoOverride({})).to.equal(undefined);
      expect(validateRepoOverride({ repo: '  ', path: 'x', branch: 'dev' })).to.equal(undefined);
      expect(rejection({ path: '../x' })).to.equal('Invalid override subPath: relative path cannot escape target directory');
      expect(rejection({ branch: 'a b' })).to.equal('Invalid override branch name: a b');
    });

    it('scrubs userinfo and credential query parameters in source, deterministically', () => {
      const repo = 'https://user:s3cret@github.com/org/r.git?access_token=abc123&ref=x';
      const a = validateRepoOverride({ repo })!;
      const b = validateRepoOverride({ repo, path: 'sub', branch: 'dev' })!;
      expect(a.source).to.equal('https://***:***@github.com/org/r.git?access_token=***&ref=x');
      expect(b.source).to.equal(a.source);
      expect(a.url).to.contain('s3cret');
    });

    it('fetches the normalised URL (trailing slash and fragment dropped)', () => {
      expect(validateRepoOverride({ repo: 'https://GitHub.com/org/r.git/#frag' })!.url).to.equal('https://github.com/org/r.git');
    });
  });
});
