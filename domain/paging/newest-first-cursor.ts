/**
 * Paging newest first (creation instant descending, id descending on ties),
 * shared by runs and sessions. A cursor is where a page ended, opaque to
 * clients: base64url of `<createdAt ISO>|<id>`. Decoding checks the whole
 * form (the instant and an id of the list's own pattern), so a cursor that
 * was altered or belongs to another list is refused, never looked up.
 */
export interface PagePosition {
  /** ISO 8601 with milliseconds, as `Date.toISOString` writes it. */
  createdAt: string;
  id: string;
}

const INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

export function encodeCursor(at: PagePosition): string {
  return Buffer.from(`${at.createdAt}|${at.id}`, 'utf8').toString('base64url');
}

/** The position in `cursor`; undefined when absent, too long, or not one svc wrote for an id `isId` accepts. */
export function decodeCursor(cursor: string | undefined, isId: (id: string) => boolean): PagePosition | undefined {
  if (!cursor || cursor.length > 200 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const bar = text.indexOf('|');
  const createdAt = text.slice(0, bar);
  const id = text.slice(bar + 1);
  if (bar < 0 || !INSTANT.test(createdAt) || Number.isNaN(Date.parse(createdAt)) || !isId(id)) return undefined;
  // the same text re-encoded: base64url has one spelling per byte string, so a cursor with altered padding bits is refused too
  return encodeCursor({ createdAt, id }) === cursor ? { createdAt, id } : undefined;
}

/** Whether `item` comes after the position in newest-first order (everything does when there is none). */
export function isAfterPosition(item: PagePosition, after: PagePosition | undefined): boolean {
  return !after || item.createdAt < after.createdAt || (item.createdAt === after.createdAt && item.id < after.id);
}

/** Newest first, the id breaking ties: the order every page follows. */
export function newestFirst(a: PagePosition, b: PagePosition): number {
  return b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id);
}
