/** What the `version` tool reports about the store several replicas share (Redis). */
export interface SharedStateStatus {
  /** false: sessions and uploads live in this process and its data folder only. */
  configured: boolean;
  connected: boolean;
  /** 'redis' or 'none'. */
  provider: string;
  /** Where, without credentials. */
  url?: string;
  /** Why it is not connected (never a credential). */
  error?: string;
}

/** Health of the shared state store. */
export interface SharedState {
  /** Bounded (2 s); never throws. */
  status(): Promise<SharedStateStatus>;
}
