import { startApp } from './app.js';
import { logLevelOf } from './config.js';
import { createLogger } from './logger.js';
import { loadConfigOrExit, startOrExit, stopOnSignals } from './process-lifecycle.js';

/** `npm start`: the API (and, unless turned off, the fan-out worker) in one process. */
const config = loadConfigOrExit();
const logger = createLogger(logLevelOf(config));
const app = await startOrExit(logger, () => startApp({ config, logger }));
logger.info('listening', { graphql: `${app.url}/graphql`, graphiql: `${app.url}/graphiql` });
stopOnSignals(logger, () => app.stop());
