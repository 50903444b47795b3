import type { RunRecord } from './run.js';

/** Where a page ended: the last run's creation instant and id (newest first, id breaks ties). */
export interface RunCursor {
  createdAt: string;
  runId: string;
}

const CURSOR = /^(\d{4}-\d\d-\d\dT[\d:.]+Z)\|(run_[0-9a-f]{32})$/;

/** Opaque to clients: base64url of `<createdAt>|<runId>`. */
export function pageCursor(last: Pick<RunRecord, 'createdAt' | 'runId'>): string {
  return Buffer.from(`${last.createdAt}|${last.runId}`, 'utf8').toString('base64url');
}

/** The decoded cursor; undefined when absent or not one svc wrote (the use case answers 400 for that first). */
export function readCursor(cursor: string | undefined): RunCursor | undefined {
  if (!cursor || cursor.length > 200) return undefined;
  const m = CURSOR.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return m ? { createdAt: m[1], runId: m[2] } : undefined;
}

/** Whether `r` comes after the cursor in newest-first order. */
export function isAfterCursor(r: Pick<RunRecord, 'createdAt' | 'runId'>, after: RunCursor | undefined): boolean {
  return !after || r.createdAt < after.createdAt || (r.createdAt === after.createdAt && r.runId < after.runId);
}
