import { ValidationError } from '../errors.js';
import { echo } from './display.js';

const NOT_ALPHABET = /[^A-Za-z0-9+/]/;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function invalid(path: string, reason: string): ValidationError {
  return new ValidationError(`Invalid base64 content in file ${echo(path)}: ${reason}`);
}

function paddingOf(text: string): number {
  let padding = 0;
  while (padding < text.length && text.charCodeAt(text.length - 1 - padding) === 0x3d) padding++;
  return padding;
}

/**
 * The decoded size of `text` if it is valid base64, from its length and
 * padding alone (O(1): the characters are not read), so size limits hold
 * before anything is decoded. Throws ValidationError when the length or the
 * padding already shows it is not strict base64.
 */
export function base64DecodedSize(text: string, path: string): number {
  if (text.length % 4 !== 0) {
    throw invalid(path, `length ${text.length} is not a multiple of 4 (padding with = is required)`);
  }
  const padding = paddingOf(text);
  if (padding > 2) throw invalid(path, 'more than two = padding characters');
  return (text.length / 4) * 3 - padding;
}

/**
 * What is wrong with `text` as canonical RFC 4648 base64 (standard alphabet,
 * `=` padding required, no whitespace or line breaks, zero padding bits), or
 * undefined when nothing is. A full scan: callers use it to explain a failure.
 */
export function base64Problem(text: string, path: string): ValidationError | undefined {
  try {
    base64DecodedSize(text, path);
  } catch (err) {
    return err as ValidationError;
  }
  const padding = paddingOf(text);
  const body = padding ? text.slice(0, text.length - padding) : text;
  const bad = NOT_ALPHABET.exec(body);
  if (bad) return invalid(path, `character ${JSON.stringify(bad[0])} at offset ${bad.index} is not in the base64 alphabet`);
  if (padding > 0) {
    // The bits after the last full byte must be zero, or two texts would decode to the same bytes.
    const last = ALPHABET.indexOf(body[body.length - 1]);
    const unused = padding === 1 ? 0b11 : 0b1111;
    if ((last & unused) !== 0) return invalid(path, 'non-zero padding bits (not canonical base64)');
  }
  return undefined;
}

/**
 * Decodes `text` into `target` at `offset` and proves it was canonical base64
 * by encoding the bytes back and comparing: node's decoder is lenient (it skips
 * characters it does not know), the comparison is not. Both steps run in
 * native code, far faster than scanning the text in JS. Throws ValidationError
 * naming the file and the first problem.
 */
export function decodeStrictBase64(text: string, size: number, target: Buffer, offset: number, path: string): void {
  const written = size === 0 ? 0 : target.write(text, offset, size, 'base64');
  if (written === size && target.toString('base64', offset, offset + size) === text) return;
  throw base64Problem(text, path) ?? invalid(path, 'not canonical base64');
}
