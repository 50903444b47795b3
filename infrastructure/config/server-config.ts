import { isIP } from 'node:net';
import path from 'node:path';
import { bool, ConfigError, int, oneOf, str, type Env } from './env-parsers.js';

export interface ServerConfig {
  port: number;
  host: string;
  /** The one admin bearer token (`SVC_AUTH_TOKEN`); more identities in `Config.auth`. */
  authToken?: string;
  /** Whether gated routes require a bearer token (`SVC_AUTH_TOKEN`, `SVC_AUTH_TOKENS_FILE` or `SVC_OIDC_ISSUER`); false runs open (loopback only). */
  authRequired: boolean;
  allowUnauthenticated: boolean;
  /** Where clones, the embedded vector store and sessions live. */
  dataDir: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Bounded wait for in-flight requests on SIGTERM/SIGINT, milliseconds. */
  shutdownGraceMs: number;
  /** Longest wait for a request's complete headers, milliseconds (slow-header clients). */
  headersTimeoutMs: number;
  /** Longest wait for a whole request (headers and body) to arrive, milliseconds; the AI tools answer after it, not within it. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open, milliseconds. */
  keepAliveTimeoutMs: number;
  /** Most connections open at once; more are closed on arrival. 0: no bound. */
  maxConnections: number;
  /** `SVC_METRICS_PUBLIC`: GET /metrics answers without a bearer token (for a scraper inside the cluster's network). */
  metricsPublic?: boolean;
}

/** true when the bind address only accepts connections from this machine. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^::ffff:127\./.test(h);
  return false;
}

/** Whether any identity is configured (a token, a tokens file or OIDC); without one svc runs open. */
function identitiesConfigured(env: Env): boolean {
  return ['SVC_AUTH_TOKEN', 'SVC_AUTH_TOKENS_FILE', 'SVC_OIDC_ISSUER'].some((v) => str(env, v) !== undefined);
}

export function parseServerConfig(env: Env, cwd: string): ServerConfig {
  const host = str(env, 'HOST') ?? '127.0.0.1';
  const authToken = str(env, 'SVC_AUTH_TOKEN');
  const allowUnauthenticated = bool(env, 'SVC_ALLOW_UNAUTHENTICATED', false);
  if (authToken !== undefined && authToken.length < 16) {
    throw new ConfigError('SVC_AUTH_TOKEN', 'must be at least 16 characters long');
  }
  const authRequired = identitiesConfigured(env);
  if (!authRequired && !isLoopbackHost(host) && !allowUnauthenticated) {
    throw new ConfigError(
      'SVC_AUTH_TOKEN',
      `is not set and HOST=${host} is not a loopback address: set SVC_AUTH_TOKEN (or SVC_AUTH_TOKENS_FILE, SVC_OIDC_ISSUER), bind HOST=127.0.0.1, or set SVC_ALLOW_UNAUTHENTICATED=true to run open on purpose`,
    );
  }
  return {
    port: int(env, 'PORT', 3456, 0, 65535),
    host,
    authToken,
    authRequired,
    allowUnauthenticated,
    dataDir: path.resolve(cwd, str(env, 'SVC_DATA_DIR') ?? '.svc-data'),
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
    shutdownGraceMs: int(env, 'SVC_SHUTDOWN_GRACE_MS', 10000, 0, 600000),
    headersTimeoutMs: int(env, 'SVC_HEADERS_TIMEOUT_MS', 30000, 100, 600000),
    requestTimeoutMs: int(env, 'SVC_REQUEST_TIMEOUT_MS', 300000, 100, 3600000),
    keepAliveTimeoutMs: int(env, 'SVC_KEEPALIVE_TIMEOUT_MS', 5000, 100, 600000),
    maxConnections: int(env, 'SVC_MAX_CONNECTIONS', 1024, 0, 1000000),
    metricsPublic: bool(env, 'SVC_METRICS_PUBLIC', false),
  };
}
