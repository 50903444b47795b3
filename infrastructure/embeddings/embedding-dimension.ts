import type { DependencyError } from '../../domain/errors.js';
import { isUsableVector } from '../../domain/vector/embedding-rules.js';

/**
 * The vector length of a model-backed embedder: configured, known for the
 * model, or learned from the first answer (probed once when asked before any).
 * Every vector is held to it: the dimension check and its refusal.
 */
export class EmbeddingDimension {
  private probing?: Promise<number>;

  constructor(
    public value: number | undefined,
    private readonly invalid: (what: string) => DependencyError,
  ) {}

  /** The length, probing with one real call when not known yet (a failed probe is tried again next time). */
  async get(probe: () => Promise<number[][]>): Promise<number> {
    if (this.value !== undefined) return this.value;
    this.probing ??= probe().then(
      (v) => v[0].length,
      (e: unknown) => {
        this.probing = undefined;
        throw e;
      },
    );
    return this.probing;
  }

  /** The vector when it is finite numbers of the expected length; else the DependencyError that says what was wrong. */
  check(vector: unknown): number[] {
    if (!isUsableVector(vector, undefined)) throw this.invalid('answered with an embedding that is not a list of finite numbers');
    this.value ??= vector.length;
    if (vector.length !== this.value) {
      throw this.invalid(
        `answered with ${vector.length}-dimensional embeddings, expected ${this.value}; check SVC_EMBEDDINGS_MODEL and SVC_EMBEDDINGS_DIMENSIONS`,
      );
    }
    return vector;
  }
}
