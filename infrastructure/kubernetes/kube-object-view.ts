import type { ClusterEvent, KubeObject } from '../../domain/cluster/kube-types.js';
import { REDACTED } from '../../domain/security/scrub-credentials.js';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * What callers see of an object read from the cluster. managedFields is
 * bookkeeping nobody reasons about (kubectl hides it too); Secret values are
 * credentials, and the last-applied annotation repeats them, so both are
 * redacted before an object can reach a model, a response or a log.
 */
let readObserver: ((raw: unknown) => void) | undefined;

/**
 * Registers the one function every adapter calls with what a GET or a list
 * answered, before Secret values are redacted (the composition root gives
 * the per-run Secret scope's noteObjectRead, which keeps them only inside a
 * tool run, to scrub them by value). Process-wide: the observer itself
 * decides whose run a read belongs to.
 */
export function observeObjectsRead(observer: ((raw: unknown) => void) | undefined): void {
  readObserver = observer;
}

/** What an adapter read, handed to the observer (never throws into the read). */
export function noteRead(raw: unknown): void {
  try {
    readObserver?.(raw);
  } catch {
    // the observer is best effort; the read stands
  }
}

export function viewObject(raw: unknown): KubeObject {
  const obj = { ...(raw as KubeObject) };
  if (obj.metadata && typeof obj.metadata === 'object') {
    const { managedFields: _dropped, ...metadata } = obj.metadata;
    obj.metadata = metadata as KubeObject['metadata'];
  }
  if (obj.kind === 'Secret') {
    for (const field of ['data', 'stringData'] as const) {
      const values = obj[field];
      if (values && typeof values === 'object') {
        obj[field] = Object.fromEntries(Object.keys(values).map((k) => [k, REDACTED]));
      }
    }
    if (obj.metadata?.annotations?.[LAST_APPLIED] !== undefined) {
      obj.metadata = { ...obj.metadata, annotations: { ...obj.metadata.annotations, [LAST_APPLIED]: REDACTED } };
    }
  }
  return obj;
}

interface RawEvent {
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  eventTime?: string | null;
  metadata?: { creationTimestamp?: string };
  series?: { count?: number; lastObservedTime?: string };
  involvedObject?: { kind?: string; name?: string; namespace?: string };
}

/** core/v1 Event -> ClusterEvent; newer events carry eventTime/series instead of the timestamps. */
export function viewEvent(e: RawEvent): ClusterEvent {
  const first = e.firstTimestamp ?? e.eventTime ?? e.metadata?.creationTimestamp ?? undefined;
  const last = e.lastTimestamp ?? e.series?.lastObservedTime ?? e.eventTime ?? first ?? undefined;
  return {
    type: e.type ?? '',
    reason: e.reason ?? '',
    message: e.message ?? '',
    count: e.count ?? e.series?.count ?? 1,
    ...(first ? { firstTimestamp: first } : {}),
    ...(last ? { lastTimestamp: last } : {}),
    involvedObject: {
      kind: e.involvedObject?.kind ?? '',
      name: e.involvedObject?.name ?? '',
      ...(e.involvedObject?.namespace ? { namespace: e.involvedObject.namespace } : {}),
    },
  };
}

export function byTime(a: ClusterEvent, b: ClusterEvent): number {
  return (a.lastTimestamp ?? '').localeCompare(b.lastTimestamp ?? '');
}
