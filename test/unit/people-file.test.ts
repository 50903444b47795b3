import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { configSecrets } from '../../infrastructure/config/config-secrets.js';
import { loadConfig } from '../../infrastructure/config/config.js';
import { ConfigError } from '../../infrastructure/config/env-parsers.js';
import { MAX_PEOPLE_FILE_BYTES, parsePeopleFile } from '../../infrastructure/config/people-file.js';

const ISSUER = 'https://dex.example.com/dex';

describe('SVC_PEOPLE_FILE: who is who, checked at start', () => {
  let dir: string;
  let n = 0;
  const write = (text: string, ext = 'yaml') => {
    const file = path.join(dir, `people-${++n}.${ext}`);
    writeFileSync(file, text);
    return file;
  };
  const load = (file: string, issuer: string | undefined = ISSUER) => parsePeopleFile({ SVC_PEOPLE_FILE: file }, dir, issuer);
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'svc-people-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads YAML or JSON: tokens-file names, OIDC issuer and subject, addresses (ASCII letters folded)', () => {
    const yaml = load(
      write(`people:
  - name: alice
    tokens: [alice, alice-ci]
    oidc:
      - { issuer: ${ISSUER}, subject: CgVhbGljZQ }
    emails: [Alice@Example.com]
  - name: Bob Builder
    emails: [bob@example.com]
`),
    );
    expect(yaml.size).to.equal(2);
    expect(yaml.personOfId('tokens-file:svc:alice-ci')).to.equal('alice');
    expect(yaml.personOfOidc(`oidc:${ISSUER}:CgVhbGljZQ`, undefined)).to.equal('alice');
    expect(yaml.personOfOidc(`oidc:${ISSUER}:other`, 'alice@example.com')).to.equal('alice');
    expect(yaml.personOfOidc(`oidc:${ISSUER}:other`, 'bob@example.com')).to.equal('Bob Builder');
    // a look-alike address is another address
    expect(yaml.personOfOidc(`oidc:${ISSUER}:other`, '\uff41lice@example.com')).to.equal(undefined);
    expect(yaml.personOfId('tokens-file:svc:bob')).to.equal(undefined);
    const json = load(write(JSON.stringify({ people: [{ name: 'carol', tokens: ['carol'] }] }), 'json'));
    expect(json.personOfId('tokens-file:svc:carol')).to.equal('carol');
    expect(parsePeopleFile({}, dir, ISSUER).size).to.equal(0);
    const config = loadConfig({ SVC_AUTH_TOKEN: 'a-long-enough-token-123', SVC_PEOPLE_FILE: write('people: [{name: dan, tokens: [dan-ci]}]') });
    expect(config.auth.people.personOfId('tokens-file:svc:dan-ci')).to.equal('dan');
    // a list of tokens-file names is no credential: nothing of it is scrubbed as one
    expect(configSecrets(config)).to.deep.equal(['a-long-enough-token-123']);
  });

  it('stops start-up naming the file and the entry for anything it cannot trust', () => {
    const cases: [string, RegExp][] = [
      ['people:\n  - name: alice\n    tokens: [alice]\n    email: [alice@example.com]\n', /entry 1 \(alice\): unknown key "email"/],
      [
        'people:\n  - name: alice\n    tokens: [alice]\n  - name: mallory\n    tokens: [alice]\n',
        /entry 2 \(mallory\): the tokens-file name alice is listed for alice too/,
      ],
      [
        'people:\n  - name: alice\n    emails: [a@example.com]\n  - name: eve\n    emails: [A@EXAMPLE.com]\n',
        /entry 2 \(eve\): the address A@EXAMPLE.com is listed for alice too/,
      ],
      ['people:\n  - name: alice\n    tokens: [a]\n  - name: ALICE\n    tokens: [b]\n', /entry 2 \(ALICE\): the name ALICE is already alice's/],
      ['people:\n  - name: alice\n    emails: ["\uff41lice@example.com"]\n', /entry 1 \(alice\): emails\[0\] must be an email address of ASCII characters/],
      [
        'people:\n  - name: alice\n    oidc: [{ issuer: "https://dex.example.com/dex/", subject: s }]\n',
        /entry 1 \(alice\): oidc\[0\]\.issuer "https:\/\/dex.example.com\/dex\/" is not SVC_OIDC_ISSUER/,
      ],
      ['people:\n  - name: alice\n    oidc: [{ issuer: x, subject: s, extra: 1 }]\n', /entry 1 \(alice\): oidc\[0\] must be \{issuer, subject\}/],
      ['people:\n  - name: alice\n', /entry 1 \(alice\): names no identity/],
      ['people:\n  - name: "sys\\ntem"\n    tokens: [a]\n', /entry 1 \(sys\ntem\): name must be/],
      ['people:\n  - name: alice\n    tokens: ["system:x"]\n', /entry 1 \(alice\): tokens\[0\] must be a tokens-file name/],
      ['- alice\n', /must be a document with one key, people/],
      ['people: [1]\nothers: []\n', /must be a document with one key, people/],
      ['people: [1]\n', /entry 1: must be a mapping/],
      ['people:\n  - name: alice\n    tokens: [a]\n    tokens: [b]\n', /is not YAML or JSON: .*unique/i],
    ];
    for (const [text, message] of cases) {
      const file = write(text);
      expect(() => load(file), text).to.throw(
        ConfigError,
        new RegExp(`SVC_PEOPLE_FILE \\(${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\): ${message.source}`),
      );
    }
  });

  it('is bounded: a file over 256 KiB is refused unread, aliases (an expansion bomb) are refused, a missing file says so', () => {
    const big = write(`people: []\n${'#'.repeat(MAX_PEOPLE_FILE_BYTES)}\n`);
    expect(() => load(big)).to.throw(ConfigError, /is \d+ bytes; at most 262144 are read/);
    const bomb = write('a: &a [x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\npeople: [*b]\n');
    expect(() => load(bomb)).to.throw(ConfigError, /is not YAML or JSON: .*alias/i);
    expect(() => load(path.join(dir, 'absent.yaml'))).to.throw(ConfigError, /absent.yaml\): cannot be read \(ENOENT\)/);
  });
});
