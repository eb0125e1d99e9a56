import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { GraphQLSchema } from 'graphql';
import { decodeJwt } from 'jose';
import { signingSecret } from './auth/signing-secret.js';
import { authenticate } from './auth/authenticate.js';
import { IdentityProvider } from './auth/identity-provider.js';
import { type RequestCredential, RequestCredentials } from './auth/request-credential.js';
import { Tokens } from './auth/tokens.js';
import { type Config, usesEmbeddedDynamo } from './config.js';
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
import { DependencyState } from './observability/dependencies.js';
import { type QueueStats, watchQueue } from './observability/metrics.js';
import { activeTracer, startTracing } from './observability/tracing.js';
import { withTimeout } from './lib/deadline.js';
import { createErrorFormatter, toHttpGraphQLError } from './graphql/errors.js';
import { createLoaders } from './graphql/loaders.js';
import { resolvers } from './graphql/resolvers/index.js';
import { createHttpServer } from './http/server.js';
import { createSubscriptionServer } from './http/subscriptions.js';
import type { Logger } from './logger.js';
import { BatchReader } from './stores/dynamo/batch-reader.js';
import { createDocumentClient, dynamoTimeoutsOf } from './stores/dynamo/client.js';
import { DynamoAccountStore, DynamoFailedAttemptStore } from './stores/dynamo/dynamo-account-store.js';
import { DynamoActivityStore } from './stores/dynamo/dynamo-activity-store.js';
import { DynamoCounterStore } from './stores/dynamo/dynamo-counter-store.js';
import { DynamoFanOutProgressStore } from './stores/dynamo/dynamo-fanout-progress-store.js';
import { DynamoGraphStore } from './stores/dynamo/graph/dynamo-graph-store.js';
import { DynamoPostStore } from './stores/dynamo/dynamo-post-store.js';
import { DynamoNotificationStore } from './stores/dynamo/dynamo-notification-store.js';
import { DynamoRepostStore } from './stores/dynamo/dynamo-repost-store.js';
import { DynamoTaskQueue } from './stores/dynamo/dynamo-task-queue.js';
import { DynamoTimelineStore } from './stores/dynamo/dynamo-timeline-store.js';
import { DynamoUserStore } from './stores/dynamo/dynamo-user-store.js';
import { type EmbeddedEngine, startEmbeddedEngine } from './stores/dynamo/embedded-engine.js';
import { tableName } from './stores/dynamo/keys.js';
import { ensureTable } from './stores/dynamo/tables.js';
import type { GraphStore } from './stores/graph/graph-store.js';
import { Neo4jGraphStore } from './stores/graph/neo4j-graph-store.js';
import { openItemCache } from './stores/cache/open-item-cache.js';
import { addCacheInvalidation } from './stores/dynamo/cache-invalidation.js';
import { CachedReader } from './stores/dynamo/cached-reader.js';
import { InProcessPubSub, type PubSub } from './stores/pubsub.js';
import type { GuardedRedis } from './stores/redis/guarded-redis.js';
import { openRedis, redisTimeoutsOf } from './stores/redis/open-redis.js';
import { RedisRateBuckets } from './stores/redis/redis-rate-buckets.js';
import { MemoryRateBuckets } from './stores/memory/memory-rate-buckets.js';
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

export interface AppOptions {
  config: Config;
  logger: Logger;
  /** Use this DynamoDB endpoint instead of starting one (tests share one engine). */
  dynamodbEndpoint?: string;
  /** Called when a store is down for good (the embedded engine's restarts are used up): the process should exit non-zero. */
  onStoreFailure?: (error: Error) => void;
}

/** `restarting` and `failed` are the embedded engine's own states (see EmbeddedEngine). */
export type StoreState = 'up' | 'down' | 'restarting' | 'failed';

export interface StoreStates {
  dynamodb: StoreState;
  graph: StoreState;
  /** Only with REDIS_URL. */
  redis?: StoreState;
}

/** `ok`; `degraded` while Redis does not answer (the service works without it); `unavailable` while a store does not (503). */
export interface Health {
  status: 'ok' | 'degraded' | 'unavailable';
  stores: StoreStates;
}

/** How long each health check waits for its store, so that /healthz answers within a second whatever the stores do. */
const HEALTH_CHECK_MS = 800;

/** Opens the stores: the embedded engine unless DynamoDB is configured, and the table. */
export interface OpenStores {
  stores: Stores;
  client: DynamoDBDocumentClient;
  table: string;
  /** The Redis command connection (REDIS_URL), for any user that can do without it: see GuardedRedis.run. */
  redis: GuardedRedis | null;
  /** Whether each store answers within HEALTH_CHECK_MS; the embedded graph backend lives in DynamoDB. */
  health(): Promise<Health>;
  /** What the durable queue holds, for the metrics of a process that runs a worker. */
  queueStats(): Promise<QueueStats>;
  close(): Promise<void>;
}

export async function openStores(options: AppOptions): Promise<OpenStores> {
  const { config, logger } = options;
  let engine: EmbeddedEngine | undefined;
  let endpoint = options.dynamodbEndpoint ?? (config.dynamodbEndpoint || undefined);
  if (!endpoint && usesEmbeddedDynamo(config)) {
    engine = await startEmbeddedEngine({ dataDir: config.dataDir, logger, restarts: config.dynamodbLocalRestarts, onFailed: options.onStoreFailure });
    endpoint = engine.endpoint;
  }
  const table = tableName(config.tablePrefix);
  const dynamoState = new DependencyState('dynamodb', logger);
  const dynamo = { endpoint, region: config.awsRegion || undefined, tableName: table, timeouts: dynamoTimeoutsOf(config), state: dynamoState };
  const client = createDocumentClient(dynamo);
  try {
    await ensureTable(client, table);
  } catch (error) {
    client.destroy();
    await engine?.stop();
    throw error;
  }
  // One reader for every store of the table, so that one tick's lookups of different kinds share calls.
  const batchReader = new BatchReader(client, table, config.batching);
  // The embedded graph backend gets a client of its own so that its requests count as graph requests.
  const graphClient = createDocumentClient({ ...dynamo, countAs: 'graph' });
  const onTable = { client, tableName: table };
  const tasks = new DynamoTaskQueue({ ...onTable, shards: config.queueShards });
  // What is open so far, closed in reverse order when a later step fails.
  const opened: (() => Promise<void> | void)[] = [() => engine?.stop(), () => client.destroy(), () => graphClient.destroy()];
  const failed = async (error: unknown): Promise<never> => {
    for (const close of opened.reverse()) await close();
    throw error;
  };
  const redis = await openRedis({ url: config.redisUrl, timeouts: redisTimeoutsOf(config) }, logger).catch(failed);
  if (redis) opened.push(() => redis.close());
  const cache = openItemCache({ mode: config.cache, maxEntries: config.cacheMaxEntries, redis: redis?.commands ?? null });
  if (cache) for (const writer of [client, graphClient]) addCacheInvalidation(writer, cache);
  // Profiles, posts, counters and a query's follow counts read through the cache; the cache passes its misses on to the shared reader.
  const reader = cache ? new CachedReader(batchReader, cache, { itemMs: config.cacheTtlMs, counterMs: config.cacheCounterTtlMs }) : batchReader;
  const graph: GraphStore = config.neo4jUri
    ? await Neo4jGraphStore.open({
        uri: config.neo4jUri,
        user: config.neo4jUser,
        password: config.neo4jPassword,
        tasks,
        timeoutMs: config.neo4jTimeoutMs,
        state: new DependencyState('neo4j', logger),
      }).catch(failed)
    : // Its reads are its own (graph requests), but for a query's follow counts: eventually consistent items shown beside the others.
      new DynamoGraphStore({
        client: graphClient,
        tableName: table,
        importApi: config.bulkWriteApi,
        reader: new BatchReader(graphClient, table, config.batching),
        tableReader: reader,
        taskItems: tasks,
      });
  // Live events: through Redis when REDIS_URL is set (several processes), else within this process.
  const pubsub: PubSub = redis?.pubsub ?? new InProcessPubSub();
  const memoryBuckets = new MemoryRateBuckets();
  const rateBuckets = redis ? new RedisRateBuckets(redis.commands, memoryBuckets) : memoryBuckets;
  const stores: Stores = {
    users: new DynamoUserStore({ ...onTable, importApi: config.bulkWriteApi, reader }),
    accounts: new DynamoAccountStore({ ...onTable, tasks }),
    activities: new DynamoActivityStore(onTable),
    failedAttempts: new DynamoFailedAttemptStore(onTable),
    graph,
    counters: new DynamoCounterStore({ ...onTable, tasks, reactionKinds: config.reactionKinds, importApi: config.bulkWriteApi, reader }),
    posts: new DynamoPostStore({ ...onTable, tasks, timelineShards: config.timelineShards, importApi: config.bulkWriteApi, reader }),
    reposts: new DynamoRepostStore({ ...onTable, tasks, reader: batchReader }),
    timelines: new DynamoTimelineStore({ ...onTable, shards: config.timelineShards, writeApi: config.bulkWriteApi }),
    notifications: new DynamoNotificationStore(onTable),
    tasks,
    fanOutProgress: new DynamoFanOutProgressStore({ ...onTable, reader: batchReader }),
    pubsub,
    rateBuckets,
  };
  return {
    stores,
    client,
    table,
    redis: redis?.commands ?? null,
    queueStats: () => tasks.stats(),
    async health() {
      const within = (check: Promise<unknown>): Promise<StoreState> =>
        withTimeout(check, HEALTH_CHECK_MS, () => new Error('no answer')).then(
          () => 'up' as const,
          () => 'down' as const,
        );
      const engineState = engine?.state();
      const dynamodb =
        engineState === 'restarting' || engineState === 'failed'
          ? Promise.resolve(engineState)
          : within(client.send(new DescribeTableCommand({ TableName: table }), { abortSignal: AbortSignal.timeout(HEALTH_CHECK_MS) }));
      const graphState = graph.backend === 'dynamodb' ? dynamodb : within(graph.ping());
      const redisState = redis && redis.commands.answers(HEALTH_CHECK_MS).then((answers): StoreState => (answers ? 'up' : 'down'));
      const stores: StoreStates = { dynamodb: await dynamodb, graph: await graphState, ...(redisState ? { redis: await redisState } : {}) };
      // Redis only accelerates: without it the service works, slower.
      const status = stores.dynamodb !== 'up' || stores.graph !== 'up' ? 'unavailable' : stores.redis === 'down' ? 'degraded' : 'ok';
      return { status, stores };
    },
    async close() {
      await rateBuckets.close();
      await redis?.close();
      await graph.close();
      await cache?.close();
      graphClient.destroy();
      client.destroy();
      await engine?.stop();
    },
  };
}

/** The fan-out worker over the durable queue, in this process (`npm start`) or alone (`npm run worker`). */
export function createWorker(stores: Stores, useCases: UseCases, config: Config, logger: Logger): Worker {
  return new Worker(
    stores.tasks,
    useCases.tasks,
    { pollMs: config.queuePollMs, leaseMs: config.queueLeaseMs, concurrency: config.workerConcurrency, maxAttempts: config.queueMaxAttempts },
    logger.child({ component: 'worker' }),
  );
}

/**
 * The client's address for the sign-in limits: the TCP peer, or behind `trustedProxyHops` proxies the
 * address the outermost of them saw (X-Forwarded-For entries further left are the client's own say).
 */
function clientAddress(request: IncomingMessage, trustedProxyHops: number): string {
  const peer = request.socket.remoteAddress ?? 'unknown';
  if (trustedProxyHops === 0) return peer;
  const forwarded = String(request.headers['x-forwarded-for'] ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const address = forwarded[forwarded.length - trustedProxyHops];
  return address !== undefined && IP_ADDRESS.test(address) ? address : peer;
}

/** What an IPv4 or IPv6 address may look like: it becomes part of a store key. */
const IP_ADDRESS = /^[0-9A-Fa-f:.]{2,45}$/;

function bearerToken(request: IncomingMessage): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new AppError('UNAUTHENTICATED', 'The Authorization header must be "Bearer <token>"');
  return match[1]!;
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
