import { ValidationError } from '../errors.js';

export const MAX_TEXTS_PER_CALL = 2048;
export const MAX_TEXT_LENGTH = 100_000;

/** Input rules every Embedder applies before any I/O. */
export function assertTexts(texts: readonly string[]): void {
  if (!Array.isArray(texts) || texts.length === 0 || texts.length > MAX_TEXTS_PER_CALL) {
    throw new ValidationError(`Texts to embed: 1 to ${MAX_TEXTS_PER_CALL} are required per call`);
  }
  texts.forEach((t, i) => {
    if (typeof t !== 'string' || t.trim().length === 0) throw new ValidationError(`Text ${i} to embed is empty`);
    if (t.length > MAX_TEXT_LENGTH) throw new ValidationError(`Text ${i} to embed is longer than ${MAX_TEXT_LENGTH} characters`);
  });
}

/** true when the vector has `dimension` elements (any length when undefined) and every one is finite. */
export function isUsableVector(vector: unknown, dimension: number | undefined): vector is number[] {
  if (!Array.isArray(vector) || vector.length === 0) return false;
  if (dimension !== undefined && vector.length !== dimension) return false;
  return vector.every((v) => typeof v === 'number' && Number.isFinite(v));
}
