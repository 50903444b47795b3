import { decodeCursor, encodeCursor, isAfterPosition, type PagePosition } from '../paging/newest-first-cursor.js';
import { isRunId, type RunRecord } from './run.js';

/** Where a page of runs ended: opaque to clients (domain/paging/newest-first-cursor.ts). */
export function pageCursor(last: Pick<RunRecord, 'createdAt' | 'runId'>): string {
  return encodeCursor({ createdAt: last.createdAt, id: last.runId });
}

/** The decoded cursor; undefined when absent or not one svc wrote (the use case answers 400 for that first). */
export function readCursor(cursor: string | undefined): PagePosition | undefined {
  return decodeCursor(cursor, isRunId);
}

/** Whether `r` comes after the cursor in newest-first order. */
export function isAfterCursor(r: Pick<RunRecord, 'createdAt' | 'runId'>, after: PagePosition | undefined): boolean {
  return isAfterPosition({ createdAt: r.createdAt, id: r.runId }, after);
}
