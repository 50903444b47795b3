import 'reflect-metadata';
import { appParts, buildContainer, resumeBackgroundWork, stopBackgroundWork, waitForSharedState } from '../infrastructure/composition-root.js';
import { ConfigError, loadConfig } from '../infrastructure/config/config.js';
import { startServer } from './http/server.js';

/** Starts svc from the environment; SIGTERM/SIGINT drain and exit 0. */
export async function serve(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`svc: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const container = buildContainer(config);
  const parts = appParts(container);
  const { logger } = parts;
  // nothing touches Redis before its connection is up (bounded: a Redis that is down is a warning, not a failed start)
  await waitForSharedState(container);
  const running = await startServer(parts);
  // after the server listens: a resumed scan never delays start-up
  resumeBackgroundWork(container).catch((err) => logger.error('resuming background work failed', { err: err instanceof Error ? err.message : String(err) }));
  const stop = (signal: string) => {
    logger.info('draining', { signal });
    Promise.all([stopBackgroundWork(container), running.close()]).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

if (require.main === module) {
  serve().catch((err) => {
    process.stderr.write(`svc: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
