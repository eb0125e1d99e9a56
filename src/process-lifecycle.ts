import { type Config, ConfigError, loadConfig } from './config.js';
import type { Logger } from './logger.js';

/** The configuration, or exit 1 with the message that names the bad variable. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
}

/** Runs `start`, or logs why it could not and exits 1. */
export async function startOrExit<T>(logger: Logger, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    logger.error('could not start', { error });
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}

/**
 * On SIGTERM or SIGINT, runs `stop` once and exits 0 (1 if stopping failed). A second
 * signal (a terminal and a process manager often both send one) must not cut the drain short.
 */
export function stopOnSignals(logger: Logger, stop: () => Promise<void>): void {
  let shuttingDown = false;
  const shutdown = (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info('shutting down', { signal });
    stop()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        logger.error('shutdown failed', { error });
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}
