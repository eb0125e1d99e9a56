import { startApp } from './app.js';
import { logLevelOf } from './config.js';
import { createLogger } from './logger.js';
import { loadConfigOrExit, startOrExit, stopOnSignals } from './process-lifecycle.js';

/** `npm start`: the API (and, unless turned off, the fan-out worker) in one process. */
const config = loadConfigOrExit();
const logger = createLogger(logLevelOf(config));
const lifecycle = stopOnSignals(logger);
const app = await startOrExit(logger, () =>
  startApp({ config, logger, onStoreFailure: (error) => lifecycle.fail(error) }),
);
lifecycle.stopWith(() => app.stop());
logger.info('listening', { graphql: `${app.url}/graphql`, graphiql: `${app.url}/graphiql` });
