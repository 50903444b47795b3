/** What to clone. `token`, when present, may be sent only to `url`'s host. */
export interface CloneRequest {
  url: string;
  branch: string;
  /** Target directory; created by the fetcher; must not exist yet. */
  dir: string;
  token?: string;
  /** Abort after this many milliseconds. */
  timeoutMs: number;
}

/** Shallow (depth 1), single-branch clone over http(s). */
export interface GitFetcher {
  /** Throws PromptsSourceError with a scrubbed message on any failure. */
  clone(request: CloneRequest): Promise<void>;
}
