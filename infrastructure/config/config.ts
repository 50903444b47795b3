import { parseAiConfig, type AiConfig } from './ai-config.js';
import { parseAuthConfig, type AuthConfig } from './auth-config.js';
import { parseClusterConfig, type ClusterConfig } from './cluster-config.js';
import { parseFleetConfig } from './fleet-config.js';
import type { Env } from './env-parsers.js';
import { parseGitopsConfig, type GitopsConfig } from './gitops-config.js';
import { parseLedgerConfig, type LedgerConfig } from './ledger-config.js';
import { parseLlmConfig, type LlmConfig } from './llm-config.js';
import { parseOrgDataConfig, type OrgDataConfig } from './orgdata-config.js';
import { parsePromptsConfig, type PromptsConfig } from './prompts-config.js';
import { parseSessionsConfig, type SessionsConfig } from './sessions-config.js';
import { parseRunsConfig, type RunsConfig } from './runs-config.js';
import { parseRedisConfig, type RedisConfig } from './redis-config.js';
import { parseRateLimitConfig, type RateLimitConfig } from './rate-limit-config.js';
import { parseServerConfig, type ServerConfig } from './server-config.js';
import { parseTracingConfig, type TracingConfig } from './tracing-config.js';
import { parseUploadsConfig, type UploadsConfig } from './uploads-config.js';
import { parseVectorConfig, type VectorConfig } from './vector-config.js';
import { parseWriteConfig } from './write-config.js';
import type { WriteScope } from '../../domain/actions/write-scope.js';

export { ConfigError } from './env-parsers.js';

/**
 * The whole validated configuration. Parsed once at start-up; the only place
 * that reads the environment. Each area parses its own section in its own file.
 */
export interface Config {
  server: ServerConfig;
  auth: AuthConfig;
  uploads: UploadsConfig;
  vector: VectorConfig;
  cluster: ClusterConfig;
  /** Where svc may write: SVC_WRITE_NAMESPACES, SVC_WRITE_KINDS, svc's own namespace. */
  writes: WriteScope;
  llm: LlmConfig;
  ai: AiConfig;
  sessions: SessionsConfig;
  runs: RunsConfig;
  ledger: LedgerConfig;
  redis: RedisConfig;
  rateLimit: RateLimitConfig;
  orgData: OrgDataConfig;
  tracing: TracingConfig;
  prompts: PromptsConfig;
  gitops: GitopsConfig;
}

export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): Config {
  return {
    server: parseServerConfig(env, cwd),
    auth: parseAuthConfig(env, cwd),
    uploads: parseUploadsConfig(env),
    vector: parseVectorConfig(env, parseServerConfig(env, cwd).dataDir),
    cluster: withFleet(env, parseClusterConfig(env)),
    writes: parseWriteConfig(env, parseClusterConfig(env).source),
    llm: parseLlmConfig(env),
    ai: parseAiConfig(env),
    sessions: parseSessionsConfig(env),
    runs: parseRunsConfig(env),
    ledger: parseLedgerConfig(env),
    redis: parseRedisConfig(env),
    rateLimit: parseRateLimitConfig(env),
    orgData: parseOrgDataConfig(env),
    tracing: parseTracingConfig(env),
    prompts: parsePromptsConfig(env),
    gitops: parseGitopsConfig(env),
  };
}

/** The cluster section with SVC_CLUSTERS' fleet, when it is set. */
function withFleet(env: Env, cluster: ClusterConfig): ClusterConfig {
  const fleet = parseFleetConfig(env, cluster.source);
  return fleet ? { ...cluster, fleet } : cluster;
}
