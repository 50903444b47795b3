import { expect } from 'chai';
import { ValidationError } from '../../../domain/errors.js';
import { checkSourceIdentifier, displaySource, sourceKey } from '../../../domain/uploads/source-identifier.js';

function refusal(value: unknown): string {
  try {
    checkSourceIdentifier(value);
  } catch (err) {
    expect(err).to.be.instanceOf(ValidationError);
    return (err as ValidationError).message;
  }
  throw new Error(`expected ${JSON.stringify(value)} to be refused`);
}

describe('upload source identifiers', () => {
  const accepted = [
    'local:alice-skills',
    'local:x',
    'https://github.com/org/skills.git',
    'http://git.internal.example/org/skills',
    'ssh://git@git.internal.example:2222/org/skills.git',
    'git://git.example/skills',
    'git@github.com:org/skills.git',
    'https://user:s3cr3t-token@git.example/org/skills.git',
  ];
  for (const id of accepted) {
    it(`accepts ${id} exactly as sent`, () => {
      expect(checkSourceIdentifier(id)).to.equal(id);
    });
  }

  it('requires source', () => {
    expect(refusal(undefined)).to.match(/^Missing required field source: expected a git URL .* or local:<label>$/);
    expect(refusal(null)).to.match(/^Missing required field source/);
    expect(refusal(42)).to.match(/^Invalid source: must be a string/);
    expect(refusal('')).to.match(/^Invalid source: empty/);
  });

  const refused = [
    'my-skills',
    'local:',
    'ftp://host/x',
    'file:///home/me/skills',
    'https://',
    'local:a b',
    'local:a\nb',
    'mailto:x@y',
    'javascript:alert(1)',
    'C:\\skills',
  ];
  for (const id of refused) {
    it(`refuses ${JSON.stringify(id)}`, () => {
      expect(refusal(id)).to.match(/^Invalid source /);
    });
  }

  it('bounds the length', () => {
    expect(checkSourceIdentifier(`local:${'a'.repeat(2042)}`)).to.have.length(2048);
    expect(refusal(`local:${'a'.repeat(2043)}`)).to.match(/longer than 2048 characters$/);
  });

  it('never echoes a credential of the identifier', () => {
    const m = refusal('https://user:s3cr3t-token@git.example/a b');
    expect(m).not.to.include('s3cr3t-token');
    expect(m).to.include('***:***@git.example');
  });

  it('keys by a digest of the exact identifier and shows it scrubbed', () => {
    const a = 'https://user:s3cr3t-token@git.example/org/skills.git';
    const b = 'https://other:t0k3n-other@git.example/org/skills.git';
    expect(sourceKey(a))
      .to.match(/^[0-9a-f]{64}$/)
      .and.not.include('s3cr3t');
    expect(sourceKey(a)).not.to.equal(sourceKey(b));
    expect(sourceKey('local:x')).not.to.equal(sourceKey('local:X'));
    expect(displaySource(a)).to.equal('https://***:***@git.example/org/skills.git');
    expect(displaySource('local:alice-skills')).to.equal('local:alice-skills');
  });
});
