/** Exit codes of `svc` (README "CLI"). */
export const EXIT = { ok: 0, refused: 1, usage: 2, checkFailed: 3, interrupted: 130 } as const;

/** The command line itself is wrong: bad flag, bad parameter, unreadable input file (exit 2). */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The server answered with an error envelope, or could not be reached (exit 1). */
export class RequestFailed extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status?: number,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'RequestFailed';
  }
}

/** A check the command ran found a problem it already printed (exit 3): `svc changes verify` on a broken chain. */
export class CheckFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CheckFailed';
  }
}

/** Ctrl-C stopped the command; what it did about it was already printed (exit 130, as a shell reports SIGINT). */
export class Interrupted extends Error {
  constructor() {
    super('interrupted');
    this.name = 'Interrupted';
  }
}
