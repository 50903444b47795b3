import { expect } from 'chai';
import { ValidationError } from '../../../domain/errors.js';
import { normaliseUploadPath } from '../../../domain/uploads/file-path.js';

function refusal(path: string): string {
  try {
    normaliseUploadPath(path);
  } catch (err) {
    expect(err).to.be.instanceOf(ValidationError);
    return (err as ValidationError).message;
  }
  throw new Error(`expected ${JSON.stringify(path)} to be refused`);
}

describe('upload file paths', () => {
  it('normalises separators, empty and . segments', () => {
    expect(normaliseUploadPath('SKILL.md')).to.equal('SKILL.md');
    expect(normaliseUploadPath('skills/a/SKILL.md')).to.equal('skills/a/SKILL.md');
    expect(normaliseUploadPath('./skills//a/./SKILL.md')).to.equal('skills/a/SKILL.md');
    expect(normaliseUploadPath('skills\\a\\run.sh')).to.equal('skills/a/run.sh');
    expect(normaliseUploadPath('a..b/..c/d..')).to.equal('a..b/..c/d..');
    expect(normaliseUploadPath('.hidden/...')).to.equal('.hidden/...');
    expect(normaliseUploadPath('%2e%2e/x')).to.equal('%2e%2e/x');
  });

  it('gives the exact null-byte message of SPEC.md', () => {
    expect(refusal('a\0b.md')).to.equal('Invalid file path a\0b.md: contains null byte');
    expect(refusal('\0')).to.equal('Invalid file path \0: contains null byte');
    expect(refusal('../\0')).to.equal('Invalid file path ../\0: contains null byte');
  });

  const traversal = ['..', '../x', 'a/../../x', 'a/..', 'a/../b', '..\\x', 'a\\..\\..\\x', './..', 'a//..//b', 'a/./../b'];
  for (const p of traversal) {
    it(`refuses the .. segment in ${JSON.stringify(p)}`, () => {
      expect(refusal(p)).to.equal(`Invalid file path ${p}: contains a .. segment`);
    });
  }

  const absolute = ['/etc/passwd', '/', '//server/share/x', '\\x', '\\\\server\\share\\x', '/a/../b'];
  for (const p of absolute) {
    it(`refuses the absolute path ${JSON.stringify(p)}`, () => {
      expect(refusal(p)).to.equal(`Invalid file path ${p}: must be relative, not absolute`);
    });
  }

  const drives = ['C:', 'C:\\Windows\\x', 'c:/x', 'C:x', 'z:..\\x'];
  for (const p of drives) {
    it(`refuses the drive path ${JSON.stringify(p)}`, () => {
      expect(refusal(p)).to.equal(`Invalid file path ${p}: must be relative, not a drive path`);
    });
  }

  it('refuses empty paths and paths that name no file', () => {
    expect(refusal('')).to.equal('Invalid file path : is empty');
    expect(refusal('.')).to.equal('Invalid file path .: names a directory, not a file');
    expect(refusal('a/')).to.equal('Invalid file path a/: names a directory, not a file');
    expect(refusal('a/.')).to.equal('Invalid file path a/.: names a directory, not a file');
    expect(refusal('a\\')).to.equal('Invalid file path a\\: names a directory, not a file');
  });

  it('refuses control characters and overlong paths, echoing a long path cut short', () => {
    expect(refusal('a\nb')).to.equal('Invalid file path a\nb: contains a control character');
    expect(refusal('a\u007fb')).to.match(/contains a control character$/);
    const long = 'x'.repeat(1025);
    const message = refusal(long);
    expect(message).to.match(/is longer than 1024 characters$/);
    expect(message.length).to.be.lessThan(300);
    expect(normaliseUploadPath('y'.repeat(1024))).to.have.length(1024);
  });
});
