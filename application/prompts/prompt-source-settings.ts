import type { RepoLocation } from '../../domain/prompts/repo-override.js';

/** How the prompt library finds its sources; built from configuration at the composition root. */
export interface PromptSourceSettings {
  /** `SVC_USER_PROMPTS_REPO` with its `_PATH` and `_BRANCH`; undefined serves the built-ins. */
  configuredRepo?: RepoLocation;
  /** `SVC_GIT_TOKEN`. */
  serverToken?: string;
  /** `SVC_ALLOWED_REPO_HOSTS`. */
  allowedHosts: readonly string[];
  /** Folder of the built-in prompts. */
  builtinDir: string;
  /** `SVC_USER_PROMPTS_CACHE_TTL`, in milliseconds. */
  cacheTtlMs: number;
  /** A clone slower than this fails (502); milliseconds. */
  cloneTimeoutMs: number;
  /** At most this many clones run at once; more wait their turn. */
  maxConcurrentClones: number;
}
