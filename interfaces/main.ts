import 'reflect-metadata';
import { buildContainer } from '../infrastructure/composition-root.js';
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
  const running = await startServer(buildContainer(config));
  const stop = (signal: string) => {
    process.stderr.write(`svc: ${signal} received, draining\n`);
    running.close().then(
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
