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

export interface Lifecycle {
  /** What stopping means once the process has started: drain, stop the worker, close the stores. */
  stopWith(stop: () => Promise<void>): void;
  /** A fatal error (a store down for good): the same orderly stop, then exit 1 so that a supervisor starts the process again. */
  fail(error: Error): void;
}

/**
 * On SIGTERM or SIGINT, runs the stop given to `stopWith` once and exits 0 (1 if stopping
 * failed); before there is one, exits at once. A second signal (a terminal and a process
 * manager often both send one) must not cut the drain short.
 */
export function stopOnSignals(logger: Logger): Lifecycle {
  let stop: () => Promise<void> = async () => {};
  let shuttingDown = false;
  const shutdown = (reason: Record<string, unknown>, exitCode: number) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info('shutting down', reason);
    stop()
      .then(() => process.exit(exitCode))
      .catch((error: unknown) => {
        logger.error('shutdown failed', { error });
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown({ signal: 'SIGTERM' }, 0));
  process.on('SIGINT', () => shutdown({ signal: 'SIGINT' }, 0));
  return {
    stopWith(given) {
      stop = given;
    },
    fail(error) {
      logger.error('stopping after a fatal error', { error });
      shutdown({ exitCode: 1 }, 1);
    },
  };
}
