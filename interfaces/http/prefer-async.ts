/** Whether an RFC 7240 `Prefer` header asks for `respond-async` (among other preferences, any case). */
export function prefersAsync(prefer: string | undefined): boolean {
  if (!prefer) return false;
  return prefer.split(',').some((p) => p.split(';')[0].trim().toLowerCase() === 'respond-async');
}

/** Where a run is read, streamed and cancelled. */
export function runLinks(runId: string): { self: string; events: string } {
  return { self: `/api/v1/runs/${runId}`, events: `/api/v1/runs/${runId}/events` };
}
