import { createHash } from 'node:crypto';
import { ValidationError } from '../errors.js';
import { echo } from './display.js';
import { formatMode } from './file-mode.js';
import type { IngestedFile } from './ingested-source.js';

const FORM = /^sha256:[0-9a-fA-F]{64}$/;

/** Validates the `sha256:<64 hex>` form and returns it lower-cased (the form compared and cached). */
export function parseContentHash(value: unknown): string {
  if (typeof value !== 'string' || !FORM.test(value)) {
    const shown = typeof value === 'string' ? echo(value) : typeof value;
    throw new ValidationError(`Invalid contentHash ${shown}: expected sha256:<64 hex digits>`);
  }
  return value.toLowerCase();
}

/**
 * The manifest hash a client computes to send `contentHash` (README, "Uploading
 * skill sources"): SHA-256 over every file in ascending byte order of its
 * normalised UTF-8 path, each contributing
 * `path NUL mode NUL size NUL bytes`, where mode is the sanitised mode as four
 * octal digits (`0644`) and size the decoded length in decimal. The identifier
 * is not part of it. `files` must already be in that order.
 */
export function computeContentHash(files: readonly IngestedFile[]): string {
  const hash = createHash('sha256');
  for (const f of files) {
    hash.update(`${f.path}\0${formatMode(f.mode)}\0${f.content.byteLength}\0`, 'utf8');
    hash.update(f.content);
  }
  return `sha256:${hash.digest('hex')}`;
}
