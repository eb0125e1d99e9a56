import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { withTimeout } from '../lib/deadline.js';
import { currentCostMeter } from './cost.js';

/**
 * The process's Prometheus metrics, one registry per process. Every label has a bounded set of values, so no
 * client can grow the series (see docs/running.md).
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const STORE_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const TASK_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];

export const httpRequests = new Counter({
  name: 'http_requests_total',
  help: 'HTTP requests answered, by route, method and status.',
  labelNames: ['route', 'method', 'status'] as const,
  registers: [registry],
});

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Time from a request arriving to its answer being sent, by route.',
  labelNames: ['route'] as const,
  buckets: SECONDS_BUCKETS,
  registers: [registry],
});

export const graphqlOperationDuration = new Histogram({
  name: 'graphql_operation_duration_seconds',
  help: 'GraphQL operations executed (the _count is the request count), by operation name and type.',
  labelNames: ['operation', 'type'] as const,
  buckets: SECONDS_BUCKETS,
  registers: [registry],
});

export const graphqlErrors = new Counter({
  name: 'graphql_errors_total',
  help: 'Errors in GraphQL responses, by operation name and extensions.code.',
  labelNames: ['operation', 'code'] as const,
  registers: [registry],
});

export const storeRequests = new Counter({
  name: 'store_requests_total',
  help: 'Requests sent to a store (dynamodb, or the graph: neo4j, or the embedded graph backend in DynamoDB), by command, outcome and origin (request: serving an API request; background: the worker and the rest).',
  labelNames: ['store', 'command', 'outcome', 'origin'] as const,
  registers: [registry],
});

export const storeRequestDuration = new Histogram({
  name: 'store_request_duration_seconds',
  help: 'Time a store request took, retries and the wait for a slot (DYNAMODB_REQUESTS_AT_ONCE) included, by store and command.',
  labelNames: ['store', 'command'] as const,
  buckets: STORE_BUCKETS,
  registers: [registry],
});

export const dynamodbCapacity = new Counter({
  name: 'dynamodb_consumed_capacity_units_total',
  help: 'Capacity units DynamoDB reported as consumed (ReturnConsumedCapacity TOTAL), by store (dynamodb, or graph for the embedded graph backend), capacity (read, write), command and origin.',
  labelNames: ['store', 'capacity', 'command', 'origin'] as const,
  registers: [registry],
});

export const cacheLookups = new Counter({
  name: 'cache_lookups_total',
  help: 'Item lookups the read-through cache answered (hit) or passed to DynamoDB (miss), by item kind (user, post, counter: counts of a post or a profile, or a shard).',
  labelNames: ['kind', 'result'] as const,
  registers: [registry],
});

export const dependencyUp = new Gauge({
  name: 'dependency_up',
  help: 'Whether a dependency answered its last call in time (1) or not (0): dynamodb, neo4j, redis (commands), redis_subscriber.',
  labelNames: ['dependency'] as const,
  registers: [registry],
});

export const dependencyUnavailable = new Counter({
  name: 'dependency_unavailable_total',
  help: 'Calls to a dependency that did not answer in time or could not reach it, and Redis calls answered by their fallback while its circuit was open.',
  labelNames: ['dependency'] as const,
  registers: [registry],
});

export const redisCircuitState = new Gauge({
  name: 'redis_circuit_state',
  help: "State of a Redis connection's circuit breaker: 0 closed (commands go to Redis), 1 half-open (one probe out), 2 open (fallbacks).",
  labelNames: ['dependency'] as const,
  registers: [registry],
});

export const counterShardRaises = new Counter({
  name: 'counter_shard_raises_total',
  help: 'Posts whose counter shards this process raised because their counter writes ran past COUNTER_SHARD_WRITES_PER_SECOND a shard.',
  registers: [registry],
});

export const tasksRun = new Counter({
  name: 'worker_tasks_total',
  help: 'Task runs by kind and outcome: done, stopped (handed back at shutdown), lost (lease taken over), deferred (not due yet, handed back to run later), failed (to be retried), dead_lettered.',
  labelNames: ['kind', 'outcome'] as const,
  registers: [registry],
});

export const taskRunDuration = new Histogram({
  name: 'worker_task_run_duration_seconds',
  help: 'Time one run of a task took, by kind.',
  labelNames: ['kind'] as const,
  buckets: TASK_BUCKETS,
  registers: [registry],
});

export const taskWait = new Histogram({
  name: 'worker_task_wait_seconds',
  help: 'Time from a task being enqueued to its first claim, by kind.',
  labelNames: ['kind'] as const,
  buckets: TASK_BUCKETS,
  registers: [registry],
});

export const fanoutLag = new Histogram({
  name: 'fanout_lag_seconds',
  help: "Time from a post being created to its fan-out having written its last follower's home entry.",
  buckets: TASK_BUCKETS,
  registers: [registry],
});

export const tasksRunning = new Gauge({
  name: 'worker_tasks_running',
  help: 'Tasks this process is running now.',
  registers: [registry],
});

/** What the durable queue holds, read when metrics are scraped (see DynamoTaskQueue.stats). */
export interface QueueStats {
  /** Per queue shard: tasks in it (waiting, held or waiting for a retry; counted up to a cap), and the enqueue time of its oldest, null when empty. */
  shards: { depth: number; oldestEnqueuedMs: number | null }[];
  deadLetters: number;
}

let queueStats: (() => Promise<QueueStats>) | null = null;
/** A scrape answers without the queue's gauges rather than wait for a store that does not answer. */
const QUEUE_SCRAPE_TIMEOUT_MS = 1_000;
/** One read of the queue per scrape, shared by the gauges that show it. */
let pendingStats: Promise<QueueStats | null> | null = null;

function scrapeQueue(): Promise<QueueStats | null> {
  const read = () =>
    queueStats
      ? withTimeout(queueStats(), QUEUE_SCRAPE_TIMEOUT_MS, () => new Error('the queue did not answer')).catch(
          () => null,
        )
      : Promise.resolve(null);
  pendingStats ??= read().finally(() => {
    setImmediate(() => {
      pendingStats = null;
    });
  });
  return pendingStats;
}

new Gauge({
  name: 'task_queue_depth',
  help: 'Tasks in each shard of the durable queue (waiting, running, or waiting for a retry); counted up to 10,000 a shard.',
  labelNames: ['shard'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    const stats = await scrapeQueue();
    stats?.shards.forEach((shard, n) => this.set({ shard: String(n) }, shard.depth));
  },
});

new Gauge({
  name: 'task_queue_oldest_task_age_seconds',
  help: 'Age of the oldest task in each shard of the durable queue (0 when the shard is empty).',
  labelNames: ['shard'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    const stats = await scrapeQueue();
    const now = Date.now();
    stats?.shards.forEach((shard, n) =>
      this.set(
        { shard: String(n) },
        shard.oldestEnqueuedMs === null ? 0 : Math.max(0, now - shard.oldestEnqueuedMs) / 1000,
      ),
    );
  },
});

new Gauge({
  name: 'task_dead_letters',
  help: 'Tasks in the dead-letter list (DEADLETTER), waiting for an operator; counted up to 10,000.',
  registers: [registry],
  async collect() {
    this.reset();
    const stats = await scrapeQueue();
    if (stats) this.set(stats.deadLetters);
  },
});

/**
 * The queue the gauges above read at each scrape, or null for none. Only a process that runs a
 * worker reads the queue: N API instances scraping it would pay N times for the same figures.
 */
export function watchQueue(stats: (() => Promise<QueueStats>) | null): void {
  queueStats = stats;
}

/** Whether a store request is made while serving an API request (its cost meter is set) or in the background. */
export function requestOrigin(): 'request' | 'background' {
  return currentCostMeter() ? 'request' : 'background';
}

/** Most distinct operation names labelled; later ones count as `other`. */
export const MAX_OPERATION_NAMES = 100;
/** A GraphQL name, at most 64 characters. */
const OPERATION_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,63}$/;
const operationNames = new Set<string>();

/**
 * The label of an operation that parsed and validated: its name while fewer than
 * MAX_OPERATION_NAMES names have been seen, `other` past them, `anonymous` without a name.
 */
export function operationLabel(name: string | null | undefined): string {
  if (!name) return 'anonymous';
  if (!OPERATION_NAME.test(name)) return 'other';
  if (operationNames.has(name)) return name;
  if (operationNames.size >= MAX_OPERATION_NAMES) return 'other';
  operationNames.add(name);
  return name;
}

/** An error code as a label: the service's codes are upper-case words; anything else is `other`. */
export function errorCodeLabel(code: unknown): string {
  return typeof code === 'string' && /^[A-Z][A-Z_]{0,63}$/.test(code) ? code : 'other';
}

/** A task kind as a label: a kind this version knows, or one a newer version wrote, bounded in form. */
export function taskKindLabel(kind: unknown): string {
  return typeof kind === 'string' && /^[A-Za-z]{1,32}$/.test(kind) ? kind : 'other';
}
