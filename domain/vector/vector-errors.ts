import { ExecutionError } from '../errors.js';

/**
 * A vector's length does not match the collection's, or an existing collection
 * was created for another embedding model. Never resolved by recreating the
 * collection: that would silently drop the stored points.
 */
export class VectorDimensionError extends ExecutionError {
  constructor(
    readonly collection: string,
    readonly expected: number,
    readonly actual: number,
    hint = 'use the embedding model the collection was built with, or delete the collection and re-index it',
  ) {
    super(`Vector dimension mismatch in collection '${collection}': it holds ${expected}-dimensional vectors, got ${actual}; ${hint}`);
  }
}

/** A write to a collection that does not exist (callers create it with ensureCollection first). */
export class CollectionNotFoundError extends ExecutionError {
  constructor(readonly collection: string) {
    super(`Vector collection '${collection}' does not exist; create it before writing to it`);
  }
}
