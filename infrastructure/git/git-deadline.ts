import { GitTransportError } from './git-transport-error.js';

/** A deadline for one git operation: its signal aborts the HTTP requests, and `race` stops waiting for the operation. */
export interface GitDeadline {
  readonly signal: AbortSignal;
  /** `work`, or a GitTransportError('aborted') once the deadline passes; a late rejection of `work` is never left unhandled. */
  race<T>(work: Promise<T>): Promise<T>;
  /** Clears the timer and aborts whatever is still in flight. */
  end(): void;
}

export function gitDeadline(timeoutMs: number): GitDeadline {
  const controller = new AbortController();
  const aborted = new Promise<never>((_, reject) => {
    controller.signal.addEventListener('abort', () => reject(new GitTransportError('aborted')), { once: true });
  });
  aborted.catch(() => undefined);
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  return {
    signal: controller.signal,
    race: (work) => {
      work.catch(() => undefined);
      return Promise.race([work, aborted]);
    },
    end: () => {
      clearTimeout(timer);
      controller.abort();
    },
  };
}
