/** The multi-step tools whose state lives in a session, and the id prefix of each (a rollout: operate across clusters, wave by wave). */
export const SESSION_KINDS = {
  remediation: 'rem',
  operation: 'opr',
  solution: 'sol',
  rollout: 'rol',
} as const;
export type SessionKind = keyof typeof SESSION_KINDS;

/** One stored session. `state` is the tool's own JSON-serialisable data. */
export interface Session<S> {
  id: string;
  kind: SessionKind;
  /** Milliseconds since the epoch. */
  createdAt: number;
  updatedAt: number;
  /** After this instant the session is gone: `get` answers undefined and the record is removed. */
  expiresAt: number;
  /** 1 on create, +1 on every update; `update` succeeds only against the revision it was given. */
  revision: number;
  state: S;
}
