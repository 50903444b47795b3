import { UsageError } from './cli-errors.js';

export const DEFAULT_URL = 'http://127.0.0.1:3456';

/** Where the CLI sends its requests. Flags win over the environment. */
export interface CliTarget {
  /** Base URL without a trailing slash. */
  url: string;
  token?: string;
}

export interface GlobalFlags {
  url?: string;
  token?: string;
}

/** The one place the CLI reads its environment: SVC_URL and SVC_AUTH_TOKEN. */
export function resolveTarget(flags: GlobalFlags, env: NodeJS.ProcessEnv = process.env): CliTarget {
  const raw = flags.url ?? env.SVC_URL?.trim() ?? DEFAULT_URL;
  let url: URL;
  try {
    url = new URL(raw || DEFAULT_URL);
  } catch {
    throw new UsageError(`Invalid server URL "${raw}": expected http(s)://host:port (from --url or SVC_URL)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`Invalid server URL "${raw}": only http and https are supported (from --url or SVC_URL)`);
  }
  if (url.username || url.password) {
    throw new UsageError('The server URL must not carry credentials: pass the bearer token with --token or SVC_AUTH_TOKEN');
  }
  const token = flags.token ?? (env.SVC_AUTH_TOKEN?.trim() || undefined);
  return { url: url.toString().replace(/\/+$/, ''), token };
}
