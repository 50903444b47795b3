import type { Logger } from '../domain/ports/logger.js';
import type { Config } from './config/config.js';
import { PinoLogger } from './logging/pino-logger.js';

/**
 * The server's logger, made before the composition: the server listens (and
 * logs where) before the adapters and the app are loaded; the composition root
 * then takes this logger as its own.
 */
export function serverLogger(config: Config): Logger {
  return PinoLogger.create(config.server.logLevel);
}
