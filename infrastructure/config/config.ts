import { parseClusterConfig, type ClusterConfig } from './cluster-config.js';
import type { Env } from './env-parsers.js';
import { parseLlmConfig, type LlmConfig } from './llm-config.js';
import { parsePromptsConfig, type PromptsConfig } from './prompts-config.js';
import { parseServerConfig, type ServerConfig } from './server-config.js';

export { ConfigError } from './env-parsers.js';

/**
 * The whole validated configuration. Parsed once at start-up; the only place
 * that reads the environment. Each area parses its own section in its own file.
 */
export interface Config {
  server: ServerConfig;
  cluster: ClusterConfig;
  llm: LlmConfig;
  prompts: PromptsConfig;
}

export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): Config {
  return {
    server: parseServerConfig(env, cwd),
    cluster: parseClusterConfig(env),
    llm: parseLlmConfig(env),
    prompts: parsePromptsConfig(env),
  };
}
