import { createWorker, openStores } from './app.js';
import { ConfigError, loadConfig, logLevelOf } from './config.js';
import { createLogger } from './logger.js';
import { createUseCases } from './usecases/use-cases.js';

/** `npm run worker`: the fan-out worker alone, so that it scales apart from the API (run the API with WORKER_ENABLED=false). */
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
  let opened;
  try {
    opened = await openStores({ config, logger });
  } catch (error) {
    logger.error('could not start', { error });
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
  const worker = createWorker(opened.stores, createUseCases(opened.stores, config), config, logger);
  worker.start();
  logger.info('worker started', { table: opened.table });

  let shuttingDown = false;
  const shutdown = (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info('shutting down', { signal });
    worker
      .stop()
      .then(() => opened.close())
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
