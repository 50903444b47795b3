import type { Tracer } from '../../domain/ports/tracer.js';
import type { VectorStore } from '../../domain/ports/vector-store.js';
import { asNumber, field, traceMethods, type CallSpan, type SpanPlan } from './trace-methods.js';

function vectorCall(system: string | undefined, operation: string, args: unknown[], extra: Partial<CallSpan> = {}): CallSpan {
  const collection = typeof args[0] === 'string' ? args[0] : undefined;
  return {
    name: operation,
    ...extra,
    attributes: {
      'db.system.name': system,
      'db.operation.name': operation,
      'db.collection.name': collection,
      ...extra.attributes,
    },
  };
}

function batchSize(value: unknown) {
  return { 'db.operation.batch.size': Array.isArray(value) ? value.length : undefined };
}

/** Rows a read returned: an array of points, a page `{ points }`, or a list of names. */
function resultCount(result: unknown) {
  const rows = Array.isArray(result) ? result : field(result, 'points');
  return { 'db.query.result_count': Array.isArray(rows) ? rows.length : undefined };
}

/**
 * Operations on the data, not probes: `health`, `collectionExists`,
 * `describeCollection` and `listCollections` are status checks (the version
 * tool makes four per run) and pass through untraced, so a trace shows what a
 * tool did with the vectors, and a status call stays cheap with tracing on.
 */
function vectorPlan(system: string | undefined): SpanPlan {
  const call =
    (operation: string, extra?: (args: unknown[]) => Partial<CallSpan>): SpanPlan[string] =>
    (args) =>
      vectorCall(system, operation, args, extra?.(args));
  return {
    ensureCollection: call('ensure_collection'),
    deleteCollection: call('delete_collection'),
    upsert: call('upsert', (args) => ({ attributes: batchSize(args[1]) })),
    search: call('search', (args) => ({
      attributes: { 'db.query.limit': asNumber(field(args[1], 'limit')) },
      fromResult: (r) => ({ ...resultCount(r), 'db.vector.top_score': asNumber(field(Array.isArray(r) ? r[0] : undefined, 'score')) }),
    })),
    get: call('get', (args) => ({ attributes: batchSize(args[1]), fromResult: resultCount })),
    delete: call('delete', (args) => ({ attributes: batchSize(args[1]) })),
    count: call('count', () => ({ fromResult: (r) => ({ 'db.response.count': asNumber(r) }) })),
    list: call('list', (args) => ({ attributes: { 'db.query.limit': asNumber(field(args[1], 'limit')) }, fromResult: resultCount })),
  };
}

/**
 * VectorStore with a span per call: `search`, `upsert`, `delete`, `list`...
 * carrying `db.operation.name`, `db.collection.name`, `db.query.result_count`
 * and `db.vector.top_score`. `system` names the adapter in use ('qdrant', 'embedded') when known.
 */
export function tracedVectorStore(inner: VectorStore, tracer: Tracer, system?: string): VectorStore {
  return traceMethods(inner, tracer, vectorPlan(system));
}
