import { ValidationError } from '../errors.js';
import { echo } from './display.js';
import { MAX_UPLOAD_PATH_LENGTH } from './upload-limits.js';

// Windows drive forms: `C:`, `C:\x`, `c:/x`, `C:x` (drive-relative).
const DRIVE = /^[A-Za-z]:/;
// C0 controls and DEL; NUL is reported on its own with SPEC.md's exact message.
// eslint-disable-next-line no-control-regex -- control characters are what this pattern looks for
const CONTROL = /[\u0001-\u001f\u007f]/;

function invalid(path: string, reason: string): ValidationError {
  return new ValidationError(`Invalid file path ${echo(path)}: ${reason}`);
}

/**
 * Validates one manifest path and returns its normal form: `/`-separated,
 * with empty and `.` segments dropped. A backslash counts as a separator, so
 * `..\x` is caught as traversal and `a\b` and `a/b` are the same file.
 * Throws ValidationError naming the path and the reason.
 */
export function normaliseUploadPath(path: string): string {
  if (path.includes('\0')) throw invalid(path, 'contains null byte');
  if (path.length === 0) throw invalid(path, 'is empty');
  if (path.length > MAX_UPLOAD_PATH_LENGTH) throw invalid(path, `is longer than ${MAX_UPLOAD_PATH_LENGTH} characters`);
  if (CONTROL.test(path)) throw invalid(path, 'contains a control character');
  if (path.startsWith('/') || path.startsWith('\\')) throw invalid(path, 'must be relative, not absolute');
  if (DRIVE.test(path)) throw invalid(path, 'must be relative, not a drive path');
  const segments = path.split(/[/\\]/);
  if (segments.includes('..')) throw invalid(path, 'contains a .. segment');
  const last = segments[segments.length - 1];
  if (last === '' || last === '.') throw invalid(path, 'names a directory, not a file');
  const kept = segments.filter((s) => s !== '' && s !== '.');
  if (kept.length === 0) throw invalid(path, 'names no file');
  return kept.join('/');
}
