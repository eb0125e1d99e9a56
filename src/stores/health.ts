import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { withTimeout } from '../lib/deadline.js';
import type { EmbeddedEngine } from './dynamo/embedded-engine.js';
import { keys } from './dynamo/keys.js';
import type { GraphStore } from './graph/graph-store.js';
import type { GuardedRedis } from './redis/guarded-redis.js';

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

export interface CheckedStores {
  engine: EmbeddedEngine | undefined;
  client: DynamoDBDocumentClient;
  table: string;
  graph: GraphStore;
  redis: GuardedRedis | null;
}

/** Whether each store answers within HEALTH_CHECK_MS; the embedded graph backend lives in DynamoDB. */
export async function checkHealth({ engine, client, table, graph, redis }: CheckedStores): Promise<Health> {
  const within = (check: Promise<unknown>): Promise<StoreState> =>
    withTimeout(check, HEALTH_CHECK_MS, () => new Error('no answer')).then(
      () => 'up' as const,
      () => 'down' as const,
    );
  const engineState = engine?.state();
  const dynamodb =
    engineState === 'restarting' || engineState === 'failed'
      ? Promise.resolve(engineState)
      : // One key, not DescribeTable: DynamoDB Local counts every item of the table for that (a second at 2M items).
        within(
          client.send(new GetCommand({ TableName: table, Key: keys.healthProbe(), ProjectionExpression: 'pk' }), {
            abortSignal: AbortSignal.timeout(HEALTH_CHECK_MS),
          }),
        );
  const graphState = graph.backend === 'dynamodb' ? dynamodb : within(graph.ping());
  const redisState = redis && redis.answers(HEALTH_CHECK_MS).then((answers): StoreState => (answers ? 'up' : 'down'));
  const stores: StoreStates = {
    dynamodb: await dynamodb,
    graph: await graphState,
    ...(redisState ? { redis: await redisState } : {}),
  };
  // Redis only accelerates: without it the service works, slower.
  const status =
    stores.dynamodb !== 'up' || stores.graph !== 'up' ? 'unavailable' : stores.redis === 'down' ? 'degraded' : 'ok';
  return { status, stores };
}

/**
 * `check`, shared by the callers that come while it runs: a flood of /healthz makes one store read at a time, not
 * one per request, and each caller gets the answer of a check that was running when it asked.
 */
export function sharedHealthCheck(check: () => Promise<Health>): () => Promise<Health> {
  let running: Promise<Health> | null = null;
  return () => {
    // Bounded itself too: a probe without a deadline would otherwise hold every later request, not just its own.
    running ??= withTimeout(check(), HEALTH_CHECK_MS + 100, () => new Error('health checks did not finish')).finally(
      () => {
        running = null;
      },
    );
    return running;
  };
}
