/** Where clone directories live (under SVC_DATA_DIR). */
export interface CloneWorkspace {
  /** A fresh absolute path that does not exist yet, for GitFetcher to clone into. */
  allocate(): Promise<string>;
  /** Deletes a directory allocate() returned, recursively; a missing one is fine. Never throws. */
  release(dir: string): Promise<void>;
}
