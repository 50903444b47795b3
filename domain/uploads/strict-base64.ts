import { ValidationError } from '../errors.js';
import { echo } from './display.js';

const NOT_ALPHABET = /[^A-Za-z0-9+/]/;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function invalid(path: string, reason: string): ValidationError {
  return new ValidationError(`Invalid base64 content in file ${echo(path)}: ${reason}`);
}

/**
 * Checks that `text` is canonical RFC 4648 base64 (standard alphabet, `=`
 * padding required, no whitespace or line breaks, zero padding bits) and
 * returns its decoded length in bytes. Reads the text without decoding it, so
 * callers can enforce size limits before allocating anything.
 * Throws ValidationError naming the file and what is wrong.
 */
export function checkStrictBase64(text: string, path: string): number {
  if (text.length % 4 !== 0) {
    throw invalid(path, `length ${text.length} is not a multiple of 4 (padding with = is required)`);
  }
  let padding = 0;
  while (padding < text.length && text.charCodeAt(text.length - 1 - padding) === 0x3d) padding++;
  if (padding > 2) throw invalid(path, 'more than two = padding characters');
  const body = padding ? text.slice(0, text.length - padding) : text;
  const bad = NOT_ALPHABET.exec(body);
  if (bad) {
    throw invalid(path, `character ${JSON.stringify(bad[0])} at offset ${bad.index} is not in the base64 alphabet`);
  }
  if (padding > 0) {
    // The bits after the last full byte must be zero, or two texts would decode to the same bytes.
    const last = ALPHABET.indexOf(body[body.length - 1]);
    const unused = padding === 1 ? 0b11 : 0b1111;
    if ((last & unused) !== 0) throw invalid(path, 'non-zero padding bits (not canonical base64)');
  }
  return (text.length / 4) * 3 - padding;
}
