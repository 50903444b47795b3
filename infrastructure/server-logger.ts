import type { Logger } from '../domain/ports/logger.js';
import type { ServerConfig } from './config/server-config.js';
import { StartLogger } from './logging/start-logger.js';

/** The server's logger: `full()` loads pino, through which every later line goes. */
export interface ServerLogger extends Logger {
  full(): Logger;
}

/**
 * The server's logger, made before the composition: the server listens (and
 * logs where) before the adapters and the app are loaded; the composition root
 * then takes this logger as its own. Pino itself loads after listening
 * (StartLogger.full()); the lines before it are written as pino writes them.
 */
export function serverLogger(server: Pick<ServerConfig, 'logLevel'>): ServerLogger {
  return new StartLogger(server.logLevel);
}
