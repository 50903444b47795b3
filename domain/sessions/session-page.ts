import { isAfterPosition, newestFirst, type PagePosition } from '../paging/newest-first-cursor.js';
import { MAX_SESSIONS_EXAMINED, type SessionPage, type SessionQuery } from '../ports/session-store.js';
import type { Session } from './session.js';
import { kindOfSessionId, sessionPosition } from './session-cursor.js';

/** Records loaded at once: the adapter reads one batch per round trip. */
const LOAD_BATCH = 100;

/**
 * One page of `SessionStore.list`, the same for every adapter: `candidates`
 * are index entries in newest-first order (possibly stale: `load` answers
 * undefined for a session gone or expired), batches of them are loaded, and
 * the scan stops after MAX_SESSIONS_EXAMINED records or once one more session
 * than the page holds has matched.
 */
export async function collectSessionPage<S>(
  candidates: AsyncIterable<PagePosition[]>,
  load: (ids: string[]) => Promise<(Session<S> | undefined)[]>,
  query: SessionQuery<S>,
): Promise<SessionPage<S>> {
  const found: Session<S>[] = [];
  let examined = 0;
  let last: PagePosition | undefined;
  const wanted = (p: PagePosition) => {
    const kind = kindOfSessionId(p.id);
    return kind !== undefined && (!query.kinds || query.kinds.includes(kind)) && isAfterPosition(p, query.after);
  };
  for await (const batch of candidates) {
    const positions = batch.filter(wanted);
    for (let i = 0; i < positions.length; i += LOAD_BATCH) {
      const chunk = positions.slice(i, Math.min(i + LOAD_BATCH, i + MAX_SESSIONS_EXAMINED - examined));
      const sessions = await load(chunk.map((p) => p.id));
      for (let j = 0; j < chunk.length; j++) {
        examined++;
        last = chunk[j];
        const s = sessions[j];
        if (!s || (query.match && !query.match(s))) continue;
        found.push(s);
        if (found.length > query.limit) return { sessions: found.slice(0, query.limit), next: sessionPosition(found[query.limit - 1]) };
      }
      if (examined >= MAX_SESSIONS_EXAMINED) return { sessions: found, ...(last ? { next: last } : {}) };
    }
  }
  return { sessions: found };
}

/** A one-batch source of candidates already in memory, sorted newest first. */
export async function* inOrder(positions: readonly PagePosition[]): AsyncIterable<PagePosition[]> {
  yield [...positions].sort(newestFirst);
}
