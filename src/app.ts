import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { IdentityProvider } from './auth/identity-provider.js';
import { RequestCredentials } from './auth/request-credential.js';
import { signingSecret } from './auth/signing-secret.js';
import { Tokens } from './auth/tokens.js';
import type { Config } from './config.js';
import { createApollo, loadTypeDefs } from './graphql/apollo.js';
import { createErrorFormatter } from './graphql/errors.js';
import { createOperationContexts } from './graphql/operation-context.js';
import { createSubscriptions } from './graphql/subscriptions.js';
import { createHttpServer } from './http/server.js';
import type { Logger } from './logger.js';
import { watchQueue } from './observability/metrics.js';
import { startTracing } from './observability/tracing.js';
import { type OpenStoresOptions, openStores } from './stores/open-stores.js';
import type { Stores } from './stores/stores.js';
import { TaskEnqueuer } from './usecases/tasks/enqueuer.js';
import { type UseCases, createUseCases } from './usecases/use-cases.js';
import { Worker } from './worker/worker.js';

export interface RunningApp {
  url: string;
  config: Config;
  server: Server;
  stores: Stores;
  stop(): Promise<void>;
}

export type AppOptions = OpenStoresOptions;

/** The fan-out worker over the durable queue, in this process (`npm start`) or alone (`npm run worker`). */
export function createWorker(stores: Stores, useCases: UseCases, config: Config, logger: Logger): Worker {
  return new Worker(
    stores.tasks,
    useCases.tasks,
    {
      pollMs: config.queuePollMs,
      leaseMs: config.queueLeaseMs,
      concurrency: config.workerConcurrency,
      maxAttempts: config.queueMaxAttempts,
    },
    logger.child({ component: 'worker' }),
  );
}

/** The composition root of `npm start`: the stores, the use cases, the worker, and the API over HTTP and WebSocket. */
export async function startApp(options: AppOptions): Promise<RunningApp> {
  const { config, logger } = options;
  const tokens = new Tokens(
    await signingSecret({ jwtSecret: config.jwtSecret, dataDir: config.dataDir, logger }),
    config.jwtTtlSeconds,
  );
  const opened = await openStores(options);
  const { stores } = opened;
  const tracing = startTracing(config.otelExporterOtlpEndpoint, config.otelServiceName || 'social-graph-api');
  const enqueuer = new TaskEnqueuer(stores.tasks);
  const useCases = createUseCases(stores, config, logger, enqueuer);
  const worker = config.workerEnabled ? createWorker(stores, useCases, config, logger) : undefined;
  // The worker claims a task enqueued in this process by its key at once, instead of finding it at its next poll.
  if (worker) enqueuer.onEnqueued((task) => worker.nudge(task));

  const production = config.nodeEnv === 'production';
  const formatError = createErrorFormatter(logger, { hideSchemaDetails: !config.introspection });
  const { apollo, schema } = createApollo({ settings: config, users: stores.users, formatError, production, logger });
  const identityProvider = config.oidcIssuer
    ? new IdentityProvider({
        issuer: config.oidcIssuer,
        audience: config.oidcAudience,
        jwksUri: config.oidcJwksUri,
        jwksCooldownSeconds: config.oidcJwksCooldownSeconds,
      })
    : null;
  const credentials = new RequestCredentials(tokens, identityProvider, stores.accounts);
  const contexts = createOperationContexts({ settings: config, stores, useCases, tokens, credentials });
  const subscriptions = createSubscriptions({
    settings: config,
    schema,
    stores,
    useCases,
    credentials,
    contexts,
    formatError,
    production,
    logger,
  });

  const server = createHttpServer({
    apollo,
    context: (request, cost) => contexts.ofRequest(request, cost),
    health: () => opened.health(),
    logger,
    graphiql: config.graphiql,
    schemaSdl: loadTypeDefs(),
    metrics: config.metrics,
    timeouts: {
      requestMs: config.httpRequestTimeoutMs,
      headersMs: config.httpHeadersTimeoutMs,
      keepAliveMs: config.httpKeepAliveTimeoutMs,
    },
    maxStoreRequests: config.maxStoreRequests,
    operationTimeoutMs: config.operationTimeoutMs,
    upgrade: (request, socket, head) => subscriptions.upgrade(request, socket, head),
  });
  apollo.addPlugin(ApolloServerPluginDrainHttpServer({ httpServer: server, stopGracePeriodMillis: 10_000 }));

  try {
    await apollo.start();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
  } catch (error) {
    await opened.close();
    await tracing.stop();
    throw error;
  }
  worker?.start();
  if (worker && config.metrics) watchQueue(() => opened.queueStats());
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  let stopping: Promise<void> | undefined;
  return {
    url: `http://${host}:${address.port}`,
    config,
    server,
    stores,
    stop() {
      stopping ??= (async () => {
        await subscriptions.close();
        await apollo.stop();
        await worker?.stop();
        if (worker && config.metrics) watchQueue(null);
        await opened.close();
        await tracing.stop();
      })();
      return stopping;
    },
  };
}
