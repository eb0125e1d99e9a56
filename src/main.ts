import { startApp } from './app.js';
import { ConfigError, loadConfig, logLevelOf } from './config.js';
import { createLogger } from './logger.js';

/** `npm start`: the API (and, unless turned off, the fan-out worker) in one process. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(logLevelOf(config));
  let app;
  try {
    app = await startApp({ config, logger });
  } catch (error) {
    logger.error('could not start', { error });
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
  logger.info('listening', { graphql: `${app.url}/graphql`, graphiql: `${app.url}/graphiql` });

  let shuttingDown = false;
  const shutdown = (signal: string) => {
    // A second signal (a terminal and a process manager often both send one) must not cut the drain short.
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info('shutting down', { signal });
    app
      .stop()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        logger.error('shutdown failed', { error });
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

await main();
