import type { Express } from 'express';
import request from 'supertest';

/**
 * Two runs of the same scripted tool call differ only in what must differ:
 * session, ledger and run ids, durations and instants. Everything else of
 * the answers must be equal, so only those are replaced. A deploy's
 * planDigest covers its manifests, which carry the solution id in a label,
 * so it differs too.
 */
export function normalised(v: unknown): unknown {
  return JSON.parse(
    JSON.stringify(v)
      .replace(/(rem|opr|sol|run)_[0-9a-f]{32}/g, '$1_ID')
      .replace(/chg_(\d+)_[0-9a-f]{8}/g, 'chg_$1_ID')
      .replace(/"planDigest":"sha256:[0-9a-f]{64}"/g, '"planDigest":"DIGEST"')
      .replace(/"(executionTime|waitedMs|waitedSeconds|durationMs|elapsedMs|observedMs|observations)":[0-9.]+/g, '"$1":0')
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z/g, 'TIME'),
  );
}

type Json = Record<string, any>;

/** Polls `GET /api/v1/runs/{runId}` on `app` until `until` holds (default: the run has ended). */
export async function pollRun(
  app: Express,
  headers: Record<string, string>,
  runId: string,
  until: (run: Json) => boolean = (run) => !['queued', 'running'].includes(run.status),
  timeoutMs = 20_000,
): Promise<Json> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const run = (await request(app).get(`/api/v1/runs/${runId}`).set(headers).expect(200)).body.data;
    if (until(run)) return run;
    if (Date.now() > end) throw new Error(`run not there in time: ${JSON.stringify(run)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
