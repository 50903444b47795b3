import { DependencyError, ExecutionError, ForbiddenError, NotConfiguredError, ValidationError } from '../../domain/errors.js';
import type { WriteRefusal } from './write-request.js';

/**
 * One request of the pipeline (discovery, the live read, the dry run), its
 * failure turned into the write's refusal rather than a failed call: a
 * request the cluster rejects outright (`Rejected`), a malformed target
 * (`Invalid`: one bad action refuses only itself), the caller's RBAC
 * (`Forbidden`, by the caller), an API server that fails or does not answer
 * (`Unavailable`). The error rides along (`error`) for callers that answer
 * failures as failures. Anything else (a bug, no cluster configured) throws.
 */
export async function stepOf<T>(work: () => Promise<T>): Promise<{ value: T } | { refusal: WriteRefusal }> {
  try {
    return { value: await work() };
  } catch (e) {
    const base = { message: e instanceof Error ? e.message : '', causes: [] };
    if (e instanceof ExecutionError && !(e instanceof NotConfiguredError)) return { refusal: { ...base, reason: 'Rejected', error: e } };
    if (e instanceof ValidationError) return { refusal: { ...base, reason: 'Invalid', error: e } };
    if (e instanceof ForbiddenError) return { refusal: { ...base, reason: 'Forbidden', byCaller: true, error: e } };
    if (e instanceof DependencyError) return { refusal: { ...base, reason: 'Unavailable', message: `the preview could not be made: ${e.message}`, error: e } };
    throw e;
  }
}
