import type { NextFunction, Request, Response } from 'express';
import type { WatchRun } from '../../application/runs/watch-run.js';
import type { RunEvent } from '../../domain/runs/run.js';
import { callerOf } from './envelope.js';

export const RUN_EVENTS_PATH = '/api/v1/runs/:runId/events';

/** `Last-Event-ID` (or `?lastEventId=` for clients that cannot set headers): a non-negative integer, else from the start. */
function lastEventId(req: Request): number {
  const raw = req.get('last-event-id') ?? (typeof req.query.lastEventId === 'string' ? req.query.lastEventId : undefined);
  const n = raw !== undefined && /^\d{1,9}$/.test(raw.trim()) ? Number(raw.trim()) : 0;
  return n;
}

const frame = (e: RunEvent) => `id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;

/**
 * `GET /api/v1/runs/{runId}/events`: a text/event-stream of the run's progress,
 * what already happened first (after `Last-Event-ID`), then live, a comment
 * heartbeat while nothing happens, ending after `done`. An unknown run is the
 * usual JSON 404 (nothing is streamed before the run is found). The server's
 * own timeouts bound receiving a request, not a response, so they never cut
 * a stream; the socket's idle timeout is switched off for it.
 */
export function runEventsHandler(watchRun: WatchRun, heartbeatMs: number) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const early: RunEvent[] = [];
      let open = false;
      const watch = await watchRun.execute(String(req.params.runId), callerOf(res), lastEventId(req), (e) => (open ? res.write(frame(e)) : early.push(e)));
      res.status(200).set({
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-cache, no-transform',
        Connection: 'keep-alive',
        // nginx and some ingresses buffer responses unless told not to
        'X-Accel-Buffering': 'no',
      });
      req.socket.setTimeout(0);
      req.socket.setNoDelay(true);
      res.flushHeaders();
      res.write(`retry: 2000\n\n`);
      open = true;
      for (const e of early) res.write(frame(e));
      const beat = setInterval(() => {
        res.write(': heartbeat\n\n');
        void watch.check().catch(() => undefined);
      }, heartbeatMs);
      const stop = () => {
        clearInterval(beat);
        watch.stop();
      };
      res.on('close', stop);
      await watch.ended;
      stop();
      res.end();
    } catch (e) {
      if (res.headersSent) res.end();
      else next(e);
    }
  };
}
