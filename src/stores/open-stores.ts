import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type Config, usesEmbeddedDynamo } from '../config.js';
import { CleanupStack } from '../lib/cleanup-stack.js';
import type { Logger } from '../logger.js';
import { DependencyState } from '../observability/dependencies.js';
import type { QueueStats } from '../observability/metrics.js';
import { openItemCache } from './cache/open-item-cache.js';
import { BatchReader } from './dynamo/batch-reader.js';
import { addCacheInvalidation } from './dynamo/cache-invalidation.js';
import { CachedReader } from './dynamo/cached-reader.js';
import { ActivityRanges } from './dynamo/activity-ranges.js';
import { type TableOptions, createDocumentClient, dynamoTimeoutsOf } from './dynamo/client.js';
import { DynamoAccountStore, DynamoFailedAttemptStore } from './dynamo/dynamo-account-store.js';
import { DynamoActivityStore } from './dynamo/dynamo-activity-store.js';
import { DynamoCounterStore } from './dynamo/dynamo-counter-store.js';
import { DynamoFanOutProgressStore } from './dynamo/dynamo-fanout-progress-store.js';
import { DynamoNotificationStore } from './dynamo/dynamo-notification-store.js';
import { DynamoPostStore } from './dynamo/dynamo-post-store.js';
import { DynamoTagStore } from './dynamo/dynamo-tag-store.js';
import { DynamoRepostStore } from './dynamo/dynamo-repost-store.js';
import { DynamoTaskQueue } from './dynamo/dynamo-task-queue.js';
import { DynamoTimelineStore } from './dynamo/dynamo-timeline-store.js';
import { DynamoUserStore } from './dynamo/dynamo-user-store.js';
import { FairSends } from './dynamo/fair-sends.js';
import { startEmbeddedEngine } from './dynamo/embedded-engine.js';
import { DynamoGraphStore } from './dynamo/graph/dynamo-graph-store.js';
import { tableName } from './dynamo/keys.js';
import { ensureTable } from './dynamo/tables.js';
import type { GraphStore } from './graph/graph-store.js';
import { Neo4jGraphStore } from './graph/neo4j-graph-store.js';
import { type Health, checkHealth, sharedHealthCheck } from './health.js';
import { MemoryRateBuckets } from './memory/memory-rate-buckets.js';
import { InProcessPubSub, type PubSub } from './pubsub.js';
import type { GuardedRedis } from './redis/guarded-redis.js';
import { openRedis, redisTimeoutsOf } from './redis/open-redis.js';
import { RedisRateBuckets } from './redis/redis-rate-buckets.js';
import type { Stores } from './stores.js';

export interface OpenStoresOptions {
  config: Config;
  logger: Logger;
  /** Use this DynamoDB endpoint instead of starting one (tests share one engine). */
  dynamodbEndpoint?: string;
  /** Called when a store is down for good (the embedded engine's restarts are used up): the process should exit non-zero. */
  onStoreFailure?: (error: Error) => void;
  /** The time the stores and the use cases take as now: Date.now unless a test moves it. */
  clock?: () => number;
  /** Starts the embedded engine for bulk writes, on one core (EngineOptions.oneCore): the seed. */
  bulkWrites?: boolean;
}

/** The stores of the configured engines: the embedded DynamoDB unless one is configured, and the table. */
export interface OpenStores {
  stores: Stores;
  client: DynamoDBDocumentClient;
  table: string;
  /** The Redis command connection (REDIS_URL), for any user that can do without it: see GuardedRedis.run. */
  redis: GuardedRedis | null;
  /** Whether each store answers (see checkHealth). */
  health(): Promise<Health>;
  /** What the durable queue holds, for the metrics of a process that runs a worker. */
  queueStats(): Promise<QueueStats>;
  close(): Promise<void>;
}

/** Opens the engines and builds the stores on them; whatever was opened is closed again if a later step fails. */
export async function openStores(options: OpenStoresOptions): Promise<OpenStores> {
  const { config, logger } = options;
  const opened = new CleanupStack();
  try {
    const configured = options.dynamodbEndpoint ?? (config.dynamodbEndpoint || undefined);
    const engine =
      !configured && usesEmbeddedDynamo(config)
        ? opened.add(
            await startEmbeddedEngine({
              dataDir: config.dataDir,
              logger,
              restarts: config.dynamodbLocalRestarts,
              onFailed: options.onStoreFailure,
              oneCore: options.bulkWrites,
            }),
            (started) => started.stop(),
          )
        : undefined;
    const endpoint = engine ? engine.endpoint : configured;
    const table = tableName(config.tablePrefix);
    const dynamo = {
      endpoint,
      region: config.awsRegion || undefined,
      tableName: table,
      timeouts: dynamoTimeoutsOf(config),
      state: new DependencyState('dynamodb', logger),
      fairSends: new FairSends(config.dynamodbRequestsAtOnce),
    };
    const client = opened.add(createDocumentClient(dynamo), (created) => created.destroy());
    await ensureTable(client, table);
    // The embedded graph backend gets a client of its own so that its requests count as graph requests.
    const graphClient = opened.add(createDocumentClient({ ...dynamo, countAs: 'graph' }), (created) =>
      created.destroy(),
    );
    const redis = await openRedis({ url: config.redisUrl, timeouts: redisTimeoutsOf(config) }, logger);
    if (redis) opened.add(redis, (connections) => connections.close());
    const cache = openItemCache({
      mode: config.cache,
      maxEntries: config.cacheMaxEntries,
      redis: redis?.commands ?? null,
    });
    if (cache) opened.add(cache, (made) => made.close());
    if (cache) for (const writer of [client, graphClient]) addCacheInvalidation(writer, cache);
    // One reader for every store of the table, so that one tick's lookups of different kinds share calls.
    const batchReader = new BatchReader(client, table, config.batching);
    // Profiles, posts, counters and a query's follow counts read through the cache; the cache passes its misses on to the shared reader.
    const reader = cache
      ? new CachedReader(batchReader, cache, { itemMs: config.cacheTtlMs, counterMs: config.cacheCounterTtlMs })
      : batchReader;
    const onTable: TableOptions = { client, tableName: table };
    // The naive service (BATCHING=false) looks up each record on its own, as it does everything else.
    const activityRanges = config.batching ? new ActivityRanges(client, table, batchReader) : undefined;
    const tasks = new DynamoTaskQueue({ ...onTable, shards: config.queueShards });
    const graph: GraphStore = opened.add(
      config.neo4jUri
        ? await Neo4jGraphStore.open({
            uri: config.neo4jUri,
            user: config.neo4jUser,
            password: config.neo4jPassword,
            tasks,
            timeoutMs: config.neo4jTimeoutMs,
            state: new DependencyState('neo4j', logger),
          })
        : // Its reads are its own (graph requests), but for a query's follow counts: eventually consistent items shown beside the others.
          new DynamoGraphStore({
            client: graphClient,
            tableName: table,
            importApi: config.bulkWriteApi,
            reader: new BatchReader(graphClient, table, config.batching),
            tableReader: reader,
            taskItems: tasks,
          }),
      (store) => store.close(),
    );
    // Live events: through Redis when REDIS_URL is set (several processes), else within this process.
    const pubsub: PubSub = redis?.pubsub ?? new InProcessPubSub();
    const memoryBuckets = new MemoryRateBuckets();
    const rateBuckets = opened.add(
      redis ? new RedisRateBuckets(redis.commands, memoryBuckets) : memoryBuckets,
      (buckets) => buckets.close(),
    );
    const stores: Stores = {
      users: new DynamoUserStore({ ...onTable, importApi: config.bulkWriteApi, reader }),
      accounts: new DynamoAccountStore({ ...onTable, tasks }),
      activities: new DynamoActivityStore(onTable),
      failedAttempts: new DynamoFailedAttemptStore(onTable),
      graph,
      counters: new DynamoCounterStore({
        ...onTable,
        tasks,
        reactionKinds: config.reactionKinds,
        importApi: config.bulkWriteApi,
        reader,
        activityRanges,
      }),
      posts: new DynamoPostStore({
        ...onTable,
        tasks,
        timelineShards: config.timelineShards,
        trendShards: config.trendsShards,
        importApi: config.bulkWriteApi,
        reader,
      }),
      tags: new DynamoTagStore({ ...onTable, shards: config.trendsShards }),
      reposts: new DynamoRepostStore({ ...onTable, tasks, reader: batchReader, activityRanges }),
      timelines: new DynamoTimelineStore({ ...onTable, shards: config.timelineShards, writeApi: config.bulkWriteApi }),
      notifications: new DynamoNotificationStore(onTable),
      tasks,
      fanOutProgress: new DynamoFanOutProgressStore({ ...onTable, reader: batchReader }),
      pubsub,
      rateBuckets,
      clock: options.clock ?? Date.now,
    };
    return {
      stores,
      client,
      table,
      redis: redis?.commands ?? null,
      queueStats: () => tasks.stats(),
      health: sharedHealthCheck(() => checkHealth({ engine, client, table, graph, redis: redis?.commands ?? null })),
      close: () => opened.close(),
    };
  } catch (error) {
    await opened.close();
    throw error;
  }
}
