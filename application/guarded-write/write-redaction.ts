import type { ClusterOperation } from '../../domain/actions/cluster-action.js';
import type { KubeObject, ResourceRef } from '../../domain/cluster/kube-types.js';
import { isJsonObject } from '../../domain/json-object.js';
import { formatPath, type FieldChange, type SegmentChange } from '../../domain/operations/object-diff.js';
import { REDACTED } from '../../domain/security/scrub-credentials.js';
import { scrubSecretValues, secretValuesOf, secretValuesWritten } from '../../domain/security/secret-values.js';
import { noteValuesWritten } from '../security/secret-scope.js';
import type { WriteRefusal } from './write-request.js';

/** Diff entries shown per write. */
export const MAX_DIFF_ENTRIES = 100;

export const UNNAMED_REMOVAL_NOTE = 'removed, though the action does not name it: svc raised the risk to high';

/** The body an operation carries into the object: a manifest, or a patch. */
const bodyOf = (op: ClusterOperation): unknown => (op.method === 'patch' ? op.patch : op.method === 'delete' ? undefined : op.manifest);

const masked = (v: unknown): unknown => (isJsonObject(v) ? Object.fromEntries(Object.keys(v).map((k) => [k, REDACTED])) : REDACTED);

/**
 * The one redaction of everything a guarded write shows (preview, deploy,
 * revert, the execute-time re-check): a Secret's `data` and `stringData`
 * values as `***` in the diff, whatever answered the objects (the adapter
 * already does; a stand-in or another adapter may not), and every value the write puts into a Secret or the objects hold
 * scrubbed by value from the diff, messages and warnings (a value copied
 * into an annotation included). The values written also join the run's
 * Secret scope, so the answer, the session, the ledger and a model's next
 * message never carry them either. The last-applied annotation, which
 * repeats a manifest, never shows: the diff leaves it out (object-diff).
 */
export class WriteRedaction {
  private readonly secrets: string[];

  private constructor(
    private readonly kind: string,
    secrets: string[],
  ) {
    this.secrets = [...new Set(secrets)];
  }

  /** Made before any request: notes the values `operation` writes into a Secret named `ref`. */
  static forWrite(ref: ResourceRef, operation: ClusterOperation): WriteRedaction {
    const written = secretValuesWritten(ref, bodyOf(operation));
    noteValuesWritten(written);
    return new WriteRedaction(ref.kind, written);
  }

  /** The same, knowing the objects read and returned too (their Secret values when an adapter answered them unredacted). */
  withObjects(...objects: (KubeObject | null | undefined)[]): WriteRedaction {
    return new WriteRedaction(this.kind, [...this.secrets, ...objects.flatMap((o) => secretValuesOf(o))]);
  }

  /** The diff as shown: Secret data masked, unnamed removals noted, scrubbed, capped. */
  diff(changes: readonly SegmentChange[], flagged: readonly string[]): { diff: FieldChange[]; diffOmitted?: number } {
    const noted = new Set(flagged);
    const shown = changes.map((c) => {
      const path = formatPath(c.segments);
      const first = c.segments[0];
      const secretData = this.kind === 'Secret' && first !== undefined && 'key' in first && (first.key === 'data' || first.key === 'stringData');
      const show = (v: unknown) => (secretData ? masked(v) : v);
      return {
        path,
        ...('from' in c ? { from: show(c.from) } : {}),
        ...('to' in c ? { to: show(c.to) } : {}),
        ...(noted.has(path) ? { note: UNNAMED_REMOVAL_NOTE } : {}),
      };
    });
    const diff = this.text(shown.slice(0, MAX_DIFF_ENTRIES));
    return { diff, ...(shown.length > MAX_DIFF_ENTRIES ? { diffOmitted: shown.length - MAX_DIFF_ENTRIES } : {}) };
  }

  /** Any value (a message, warnings, a refusal) with the known Secret values as `***`. */
  text<T>(value: T): T {
    return scrubSecretValues(value, this.secrets);
  }

  refusal(r: WriteRefusal): WriteRefusal {
    const { error, ...shown } = r;
    return { ...this.text(shown), ...(error ? { error } : {}) };
  }
}
