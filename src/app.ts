import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import type { GraphQLSchema } from 'graphql';
import { decodeJwt } from 'jose';
import { signingSecret } from './auth/signing-secret.js';
import { authenticate } from './auth/authenticate.js';
import { IdentityProvider } from './auth/identity-provider.js';
import { type RequestCredential, RequestCredentials } from './auth/request-credential.js';
import { Tokens } from './auth/tokens.js';
import type { Config } from './config.js';
import { AppError, unauthenticated } from './domain/errors.js';
import type { Credential } from './domain/models.js';
import type { GraphQLContext } from './graphql/context.js';
import { authenticationPlugin } from './graphql/plugins/authentication.js';
import { costExtensionPlugin } from './graphql/plugins/cost-extension.js';
import { metricsPlugin } from './graphql/plugins/metrics.js';
import { tracingPlugin } from './graphql/plugins/tracing.js';
import { idArgumentsPlugin } from './graphql/limits/id-arguments.js';
import { queryLimitsPlugin } from './graphql/limits/query-limits.js';
import { readConsistencyPlugin } from './graphql/plugins/read-consistency.js';
import { retryAfterPlugin } from './graphql/plugins/retry-after.js';
import { subscriptionsOverWebSocketPlugin } from './graphql/plugins/subscriptions-over-websocket.js';
import { type Cost, emptyCost } from './observability/cost.js';
import { watchQueue } from './observability/metrics.js';
import { activeTracer, startTracing } from './observability/tracing.js';
import { createErrorFormatter, toHttpGraphQLError } from './graphql/errors.js';
import { createLoaders } from './graphql/loaders.js';
import { resolvers } from './graphql/resolvers/index.js';
import { bearerToken, clientAddress } from './http/request.js';
import { createHttpServer } from './http/server.js';
import { createSubscriptionServer } from './http/subscriptions.js';
import type { Logger } from './logger.js';
import { type OpenStoresOptions, openStores } from './stores/open-stores.js';
import type { Stores } from './stores/stores.js';
import { type UseCases, createUseCases } from './usecases/use-cases.js';
import { Worker } from './worker/worker.js';

export const SCHEMA_PATH = new URL('../schema.graphql', import.meta.url);

export function loadTypeDefs(): string {
  return readFileSync(SCHEMA_PATH, 'utf8');
}

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
    { pollMs: config.queuePollMs, leaseMs: config.queueLeaseMs, concurrency: config.workerConcurrency, maxAttempts: config.queueMaxAttempts },
    logger.child({ component: 'worker' }),
  );
}

export async function startApp(options: AppOptions): Promise<RunningApp> {
  const { config, logger } = options;
  const tokens = new Tokens(await signingSecret({ jwtSecret: config.jwtSecret, dataDir: config.dataDir, logger }), config.jwtTtlSeconds);
  const opened = await openStores(options);
  const { stores } = opened;
  const tracing = startTracing(config.otelExporterOtlpEndpoint, config.otelServiceName || 'social-graph-api');
  let worker: Worker | undefined;
  const useCases = createUseCases(stores, config, logger, (task) => worker?.nudge(task));
  if (config.workerEnabled) {
    worker = createWorker(stores, useCases, config, logger);
  }
  const production = config.nodeEnv === 'production';
  const formatError = createErrorFormatter(logger, { hideSchemaDetails: !config.introspection });
  let apiSchema: GraphQLSchema | null = null;

  const apollo = new ApolloServer<GraphQLContext>({
    typeDefs: loadTypeDefs(),
    resolvers,
    formatError,
    includeStacktraceInErrorResponses: !production,
    introspection: config.introspection,
    csrfPrevention: true,
    allowBatchedHttpRequests: false,
    // The parser stops at the token limit; depth, aliases and cost are checked by queryLimitsPlugin.
    parseOptions: { maxTokens: config.maxQueryTokens },
    // main.ts owns the signals: it drains HTTP, stops the worker and the engine in order.
    stopOnTerminationSignals: false,
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      queryLimitsPlugin({
        maxDepth: config.maxQueryDepth,
        maxAliases: config.maxQueryAliases,
        maxCost: config.maxQueryCost,
      }),
      idArgumentsPlugin(),
      subscriptionsOverWebSocketPlugin(),
      readConsistencyPlugin(),
      authenticationPlugin(stores.users),
      retryAfterPlugin(),
      costExtensionPlugin({ details: config.costExtensions }),
      ...(config.metrics ? [metricsPlugin()] : []),
      ...(activeTracer() ? [tracingPlugin()] : []),
      // Subscriptions run over WebSocket outside Apollo, on the schema Apollo built (with the resolvers).
      {
        async serverWillStart() {
          return {
            schemaDidLoadOrUpdate({ apiSchema: loaded }) {
              apiSchema = loaded;
            },
          };
        },
      },
    ],
    logger: { debug: () => {}, info: () => {}, warn: (m) => logger.warn(String(m)), error: (m) => logger.error(String(m)) },
  });

  const identityProvider = config.oidcIssuer
    ? new IdentityProvider({ issuer: config.oidcIssuer, audience: config.oidcAudience, jwksUri: config.oidcJwksUri, jwksCooldownSeconds: config.oidcJwksCooldownSeconds })
    : null;
  const credentials = new RequestCredentials(tokens, identityProvider, stores.accounts);

  // The token is checked here; its account, by authenticationPlugin once the operation has passed the limits.
  const context = async (request: IncomingMessage, cost: Cost): Promise<GraphQLContext> => {
    let proven: RequestCredential;
    try {
      proven = await credentials.of(bearerToken(request));
    } catch (error) {
      if (error instanceof AppError) throw toHttpGraphQLError(error, 401);
      throw error;
    }
    return operationContext(proven, request, cost);
  };

  /** What one operation's resolvers share: the viewer, and fresh loaders, budget and feed state. */
  const operationContext = (proven: RequestCredential, request: IncomingMessage, cost: Cost): GraphQLContext => {
    const viewerId = proven.credential?.userId ?? null;
    const reads = { strong: false };
    const graphBudget = useCases.graphQueries.budget();
    const loaders = createLoaders(stores, viewerId, reads, { batching: config.batching, graphBudget });
    return {
      viewerId,
      credential: proven.credential,
      identity: proven.identity,
      clientAddress: clientAddress(request, config.trustedProxyHops),
      loaders,
      reads,
      useCases,
      tokens,
      graphBudget,
      cost,
      feeds: { hydrate: config.batching, skeletons: new Map() },
    };
  };

  // A connection's account, read strongly consistent: a sign-out a moment ago counts.
  const checkSignedIn = async (credential: Credential): Promise<void> => {
    const loaders = createLoaders(stores, credential.userId, { strong: true }, { batching: config.batching, graphBudget: useCases.graphQueries.budget() });
    await authenticate(credential, loaders.user, stores.users);
  };

  const subscriptions = createSubscriptionServer({
    schema: () => apiSchema,
    // As a request's: the token, then its account and token generation (authenticate).
    async signIn(token) {
      const { credential } = await credentials.of(token);
      if (!credential) throw unauthenticated('The token names no account');
      await checkSignedIn(credential);
      // Verified above; every token the service accepts carries an expiry.
      return { credential, expiresAtMs: Number(decodeJwt(token).exp) * 1000 };
    },
    checkSignedIn,
    context(signedIn, request) {
      const proven = { credential: signedIn.credential, identity: null };
      const subscription = operationContext(proven, request, emptyCost(config.maxStoreRequests));
      subscription.startEvent = () => {
        const { loaders, reads, graphBudget, cost, feeds } = operationContext(proven, request, emptyCost(config.maxStoreRequests));
        // The account is checked again with each event, in the same wave as its hydration: an account signed
        // out everywhere or deleted since the connection began hears no more.
        const accountCheck = authenticate(signedIn.credential, loaders.user, stores.users);
        accountCheck.catch(() => {});
        Object.assign(subscription, { loaders, reads, graphBudget, cost, feeds, accountCheck });
      };
      return subscription;
    },
    limits: { maxDepth: config.maxQueryDepth, maxAliases: config.maxQueryAliases, maxCost: config.maxQueryCost, maxTokens: config.maxQueryTokens },
    charge: (userId, points) => useCases.rateLimits.charge({ viewerId: userId, clientAddress: '' }, points),
    maxSubscriptionsPerConnection: config.subscriptionsPerConnection,
    maxConnectionsPerAccount: config.subscriptionConnectionsPerAccount,
    formatError,
    logger: logger.child({ component: 'subscriptions' }),
    production,
  });

  const server = createHttpServer({
    apollo,
    context,
    health: () => opened.health(),
    logger,
    graphiql: config.graphiql,
    schemaSdl: loadTypeDefs(),
    metrics: config.metrics,
    timeouts: { requestMs: config.httpRequestTimeoutMs, headersMs: config.httpHeadersTimeoutMs, keepAliveMs: config.httpKeepAliveTimeoutMs },
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
  const url = `http://${host}:${address.port}`;

  let stopping: Promise<void> | undefined;
  return {
    url,
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
