import type { Config } from '../../../infrastructure/config/config.js';
import { isLoopbackHost } from '../../../infrastructure/config/server-config.js';

const LOCAL_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** true when a Host header names this machine by a loopback name (any port). */
export function isLocalHostHeader(host: string | undefined): boolean {
  if (!host) return false;
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0];
  return LOCAL_NAMES.has(name.toLowerCase());
}

/**
 * The Host check applies when svc runs without a token on a loopback bind (not
 * with SVC_ALLOW_UNAUTHENTICATED behind a proxy): a page in a browser could
 * otherwise reach it through DNS rebinding (its own name resolving to
 * 127.0.0.1). The request gate refuses other Host headers, /healthz excepted.
 */
export function runsOpenOnLoopback(config: Config): boolean {
  return !config.server.authRequired && isLoopbackHost(config.server.host);
}
