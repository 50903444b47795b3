import { DEFAULT_FILE_MODE } from './upload-limits.js';

// Octal digits with an optional `0o` prefix; up to 7 digits covers git's `100755`/`0100644`.
const OCTAL = /^(?:0o)?([0-7]{1,7})$/i;

/**
 * SPEC.md Prompts rule 7: setuid, setgid and sticky bits removed, masked to
 * the 0777 permission bits; an absent or unparseable mode becomes 0644. Never
 * throws: a bad mode is not a reason to refuse a manifest. A non-string
 * (a JSON number such as 755 is ambiguous: octal or decimal?) counts as unparseable.
 */
export function sanitiseMode(mode: unknown): number {
  if (typeof mode !== 'string') return DEFAULT_FILE_MODE;
  const match = OCTAL.exec(mode.trim());
  if (!match) return DEFAULT_FILE_MODE;
  return parseInt(match[1], 8) & 0o777;
}

/** `0644`-style text of a sanitised mode, as it appears in files[] and the content hash. */
export function formatMode(mode: number): string {
  return mode.toString(8).padStart(4, '0');
}
