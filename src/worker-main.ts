import { createWorker } from './app.js';
import { openStores } from './stores/open-stores.js';
import { logLevelOf } from './config.js';
import { startMetricsServer } from './http/metrics-server.js';
import { createLogger } from './logger.js';
import { watchQueue } from './observability/metrics.js';
import { startTracing } from './observability/tracing.js';
import { loadConfigOrExit, startOrExit, stopOnSignals } from './process-lifecycle.js';
import { createUseCases } from './usecases/use-cases.js';

/** `npm run worker`: the fan-out worker alone, so that it scales apart from the API (run the API with WORKER_ENABLED=false). */
const config = loadConfigOrExit();
const logger = createLogger(logLevelOf(config));
const lifecycle = stopOnSignals(logger);
// The metrics port first: a port in use stops the worker before it has started an embedded engine.
const metrics = config.metrics
  ? await startOrExit(logger, () => startMetricsServer(config.workerMetricsPort, config.host, logger))
  : null;
const opened = await startOrExit(logger, () =>
  openStores({ config, logger, onStoreFailure: (error) => lifecycle.fail(error) }),
);
const tracing = startTracing(config.otelExporterOtlpEndpoint, config.otelServiceName || 'social-graph-worker');
if (metrics) watchQueue(() => opened.queueStats());
const worker = createWorker(opened.stores, createUseCases(opened.stores, config, logger), config, logger);
worker.start();
lifecycle.stopWith(async () => {
  await worker.stop();
  metrics?.server.close();
  await opened.close();
  await tracing.stop();
});
logger.info('worker started', { table: opened.table, ...(metrics ? { metrics: metrics.url } : {}) });
