import { type Env, type Setting, bool, derivedInt, fail, int, isProduction, text } from './setting-kinds.js';
import { PLATFORM_SETTINGS } from './settings-platform.js';

const CACHE_MODES = ['memory', 'redis', 'off'] as const;
export type CacheMode = (typeof CACHE_MODES)[number];
const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'];
/** Kinds start with a letter: `__proto__` is no kind, since the DynamoDB document client drops that key when it reads a map. */
const REACTION_KIND = /^[a-z][a-z_]{0,19}$/;
const MAX_REACTION_KINDS = 20;
const DEFAULT_REACTION_KINDS = 'like,love,laugh,wow,sad,clap';
/** The Queries one computation of trendingTags may send: what its `@cost` in schema.graphql declares (20 points each). */
export const TRENDS_READ_MAX_QUERIES = 40;

const OPERATION_TIMEOUT = int(
  'OPERATION_TIMEOUT_MS',
  10_000,
  100,
  600_000,
  'Longest an operation over HTTP may run; past it the request answers 503 SERVICE_UNAVAILABLE with Retry-After and its store calls still running are abandoned.',
);

/** What the service does and how much it allows: content, background work, cache, API limits, Redis, observability. */
export const BEHAVIOUR_SETTINGS = {
  commentMaxDepth: int(
    'COMMENT_MAX_DEPTH',
    8,
    1,
    20,
    "Deepest reply: a top-level comment is at depth 0, a reply one deeper than its parent. A reply to a comment at this depth joins its parent's replies instead (see Comments and threads).",
  ),
  reactionKinds: {
    name: 'REACTION_KINDS',
    default: DEFAULT_REACTION_KINDS,
    description: `The reaction kinds \`react\` accepts, comma-separated: at most ${MAX_REACTION_KINDS}, each 1-20 characters of a-z and _ starting with a letter (see Counters).`,
    parse(raw: string | undefined): readonly string[] {
      const kinds = (raw === undefined || raw === '' ? DEFAULT_REACTION_KINDS : raw)
        .split(',')
        .map((kind) => kind.trim());
      if (kinds.length > MAX_REACTION_KINDS)
        fail('REACTION_KINDS', `may list at most ${MAX_REACTION_KINDS} kinds, got ${kinds.length}`);
      const bad = kinds.find((kind) => !REACTION_KIND.test(kind));
      if (bad !== undefined)
        fail('REACTION_KINDS', `"${bad}" is not 1-20 characters of a-z and _ starting with a letter`);
      if (new Set(kinds).size !== kinds.length) fail('REACTION_KINDS', 'lists a kind twice');
      return kinds;
    },
  } satisfies Setting<readonly string[]>,
  // At most 41: a post's creating transaction holds its shards beside up to 59 other items within DynamoDB's 100
  // (two tag counts and a tag entry for each of 10 tags, a task for each of 20 mentions, ...).
  counterShards: int(
    'COUNTER_SHARDS',
    1,
    1,
    41,
    'Counter shards a post by an author with at least HOT_AUTHOR_FOLLOWERS followers starts with; other posts start with one. At 1, only heat raises them (COUNTER_SHARD_WRITES_PER_SECOND): every page showing a sharded post reads its shards.',
  ),
  hotAuthorFollowers: int(
    'HOT_AUTHOR_FOLLOWERS',
    1000,
    0,
    100_000_000,
    "Follower count from which an author's new posts get sharded counters.",
  ),
  counterShardsMax: int(
    'COUNTER_SHARDS_MAX',
    64,
    1,
    64,
    'Most counter shards a post that turns hot after creation is raised to (doubling; 1: never raised). See Counters.',
  ),
  counterShardWritesPerSecond: int(
    'COUNTER_SHARD_WRITES_PER_SECOND',
    50,
    1,
    100_000,
    "Counter writes a second one instance may send to each of a post's shards; past it, it doubles the post's shards (up to COUNTER_SHARDS_MAX).",
  ),
  workerEnabled: bool(
    'WORKER_ENABLED',
    () => true,
    'true',
    'Run the fan-out worker inside the API process (`npm run worker` runs it alone).',
  ),
  fanoutMaxFollowers: int(
    'FANOUT_MAX_FOLLOWERS',
    10_000,
    0,
    100_000_000,
    "Authors with more followers are not fanned out: their posts are merged into followers' home timelines at read time.",
  ),
  outboxAuthorsTtlMs: int(
    'OUTBOX_AUTHORS_TTL_MS',
    10_000,
    0,
    3_600_000,
    'How long a process keeps the list of authors who are not fanned out before reading it again.',
  ),
  homeRetentionDays: int(
    'HOME_RETENTION_DAYS',
    30,
    1,
    3650,
    'How many days of posts a home timeline shows: its entries expire (DynamoDB TTL) that long after their post or repost, and no read returns an older one (see Posts and timelines).',
  ),
  notificationsMax: int(
    'NOTIFICATIONS_MAX',
    500,
    1,
    10_000,
    'Notification groups a user keeps; older ones are trimmed.',
  ),
  followBackfillPosts: int(
    'FOLLOW_BACKFILL_POSTS',
    100,
    0,
    10_000,
    "How many of the followee's newest posts a follow copies into the follower's home timeline.",
  ),
  timelineShards: int(
    'TIMELINE_SHARDS',
    4,
    1,
    64,
    'Partitions each tag timeline and the public timeline are spread over.',
  ),
  trendsWindowHours: int(
    'TRENDS_WINDOW_HOURS',
    24,
    1,
    168,
    'The recent window trendingTags counts tag uses in, in hours (the current hour and the ones before it).',
  ),
  trendsShards: int(
    'TRENDS_SHARDS',
    4,
    1,
    16,
    `Shards each hour's tag counts and each tag's total are spread over, by post id (as hot counters are). The days a window spans times the shards may be at most ${TRENDS_READ_MAX_QUERIES}: a computation of trendingTags reads each in one Query or more.`,
  ),
  trendsCacheTtlMs: int(
    'TRENDS_CACHE_TTL_MS',
    30_000,
    0,
    3_600_000,
    'How long a process serves the trendingTags list it computed (the same for every viewer) before computing it again; 0: every request computes it.',
  ),
  trendsReadMaxItems: int(
    'TRENDS_READ_MAX_ITEMS',
    100_000,
    1,
    10_000_000,
    `Most tag counts (one per tag, hour and shard) one computation of trendingTags reads, in at most ${TRENDS_READ_MAX_QUERIES} Queries; past either, it counts only the newest hours it read in full (see Search).`,
  ),
  queueShards: int('QUEUE_SHARDS', 4, 1, 64, 'Partitions the durable task queue is spread over.'),
  queuePollMs: int(
    'QUEUE_POLL_MS',
    1000,
    10,
    600_000,
    'How often an idle worker looks for tasks (a worker in the API process is also woken by new posts).',
  ),
  queueLeaseMs: int(
    'QUEUE_LEASE_MS',
    30_000,
    100,
    3_600_000,
    'How long a claimed task stays with its worker without a checkpoint before another worker may take it over.',
  ),
  queueMaxAttempts: int(
    'QUEUE_MAX_ATTEMPTS',
    10,
    1,
    1000,
    'Failed runs after which a task is moved to the dead-letter list (DEADLETTER) instead of retried.',
  ),
  accountDeletionWaitMs: derivedInt(
    'ACCOUNT_DELETION_WAIT_MS',
    '2 × (OPERATION_TIMEOUT_MS + DYNAMODB_ATTEMPT_TIMEOUT_MS)',
    (env) =>
      2 *
      (OPERATION_TIMEOUT.parse(env.OPERATION_TIMEOUT_MS, env) +
        PLATFORM_SETTINGS.dynamodbAttemptTimeoutMs.parse(env.DYNAMODB_ATTEMPT_TIMEOUT_MS, env)),
    0,
    3_600_000,
    "How long after the closing request starts an account's deletion waits before it removes the account's likes, views, reactions, comments and reposts: the closing commits within that request's deadline, and a request of the account checked just before it has written or been abandoned within its own. Read by the instance that closes the account; shorter leaves such a write behind (see Account deletion).",
  ),
  fanoutPageSize: int(
    'FANOUT_PAGE_SIZE',
    500,
    1,
    1000,
    'Followers a fan-out task (and posts, activities or follows an account deletion) handles per step; the task checkpoints after each step.',
  ),
  workerConcurrency: int('WORKER_CONCURRENCY', 4, 1, 64, 'Tasks one worker processes at a time.'),
  cache: {
    name: 'CACHE',
    default: '`redis` when REDIS_URL is set, `memory` otherwise',
    description:
      'The read-through cache of profiles, posts, counters and follow counts (see Cache): `memory` (an LRU in each process), `redis` (shared, needs REDIS_URL) or `off`.',
    parse(raw: string | undefined, env: Env): CacheMode {
      if (raw === undefined || raw === '') return (env.REDIS_URL ?? '') === '' ? 'memory' : 'redis';
      const mode =
        CACHE_MODES.find((name) => name === raw) ?? fail('CACHE', `must be memory, redis or off, got "${raw}"`);
      if (mode === 'redis' && (env.REDIS_URL ?? '') === '') fail('CACHE', 'redis needs REDIS_URL');
      return mode;
    },
  } satisfies Setting<CacheMode>,
  cacheTtlMs: int(
    'CACHE_TTL_MS',
    30_000,
    1,
    86_400_000,
    'Longest time a cached profile or post is served without being read again: a safety net, since every write invalidates what it changes.',
  ),
  cacheCounterTtlMs: int(
    'CACHE_COUNTER_TTL_MS',
    2_000,
    1,
    86_400_000,
    "Longest time a cached counter shard is served: how stale another process's `memory` cache may be (see Cache).",
  ),
  cacheMaxEntries: int(
    'CACHE_MAX_ENTRIES',
    100_000,
    1,
    100_000_000,
    'Items a `memory` cache keeps; the least recently used go first.',
  ),
  introspection: bool(
    'INTROSPECTION',
    (env) => !isProduction(env),
    'on, off in production',
    'Allow schema introspection.',
  ),
  graphiql: bool('GRAPHIQL', (env) => !isProduction(env), 'on, off in production', 'Serve GraphiQL at /graphiql.'),
  batching: bool(
    'BATCHING',
    () => true,
    'on',
    'Batch and cache store lookups per request (DataLoader). `false` makes every lookup its own call: the benchmark baseline.',
  ),
  costExtensions: bool(
    'COST_EXTENSIONS',
    (env) => !isProduction(env),
    'on, off in production',
    'Add `extensions.cost` (backend requests and capacity) to every response.',
  ),
  metrics: bool(
    'METRICS',
    () => true,
    'on',
    'Serve Prometheus metrics at `/metrics` (a standalone worker serves them on WORKER_METRICS_PORT); see Operations.',
  ),
  workerMetricsPort: int(
    'WORKER_METRICS_PORT',
    9464,
    0,
    65535,
    'Port on which `npm run worker` serves `/metrics` (on HOST); 0 picks a free port, logged at start.',
  ),
  otelExporterOtlpEndpoint: text(
    'OTEL_EXPORTER_OTLP_ENDPOINT',
    '',
    'Export OpenTelemetry traces over OTLP/HTTP to this base URL (spans go to `<url>/v1/traces`); unset, nothing is traced, at no cost (see Operations).',
    (v) => (/^https?:\/\/\S+$/.test(v) ? null : `must be an http(s) URL, got "${v}"`),
  ),
  otelServiceName: text(
    'OTEL_SERVICE_NAME',
    '',
    '`service.name` of the spans; unset: `social-graph-api`, or `social-graph-worker` for `npm run worker`.',
  ),
  maxQueryDepth: int(
    'MAX_QUERY_DEPTH',
    10,
    1,
    100,
    'Deepest nesting of fields an operation may have (`QUERY_TOO_DEEP`).',
  ),
  maxQueryAliases: int(
    'MAX_QUERY_ALIASES',
    15,
    0,
    1000,
    'Most aliased fields an operation may have (`TOO_MANY_ALIASES`).',
  ),
  maxQueryTokens: int(
    'MAX_QUERY_TOKENS',
    2000,
    100,
    100_000,
    'Most tokens a document may have; the parser stops there (`TOO_MANY_TOKENS`).',
  ),
  redisUrl: text(
    'REDIS_URL',
    '',
    'A Redis server (redis://host:port) that API instances and workers share: live events (subscriptions) go through it to every API instance, and the cache lives there (see Subscriptions, CACHE); unset, both stay in the process.',
    (v) => (/^rediss?:\/\/\S+$/.test(v) ? null : `must be a redis:// or rediss:// URL, got "${v}"`),
  ),
  redisConnectTimeoutMs: int(
    'REDIS_CONNECT_TIMEOUT_MS',
    2_000,
    10,
    60_000,
    'Longest wait for a connection to Redis, at start and at each reconnect.',
  ),
  redisCommandTimeoutMs: int(
    'REDIS_COMMAND_TIMEOUT_MS',
    1_000,
    10,
    60_000,
    'Longest wait for a Redis command; past it the command falls back (a cache read goes to DynamoDB) and the circuit opens (see REDIS_RETRY_INTERVAL_MS).',
  ),
  redisRetryIntervalMs: int(
    'REDIS_RETRY_INTERVAL_MS',
    2_000,
    10,
    600_000,
    'How long the Redis circuit stays open after a failure (every command falls back at once) before one probe asks whether Redis answers again.',
  ),
  subscriptionsPerConnection: int(
    'SUBSCRIPTIONS_PER_CONNECTION',
    5,
    1,
    1000,
    'Most subscriptions one WebSocket connection may hold at once; past it a subscribe is TOO_MANY_SUBSCRIPTIONS.',
  ),
  subscriptionConnectionsPerAccount: int(
    'SUBSCRIPTION_CONNECTIONS_PER_ACCOUNT',
    5,
    1,
    1000,
    'Most WebSocket connections one account may hold on one API instance; past it the connection is closed with 4403.',
  ),
  maxQueryCost: int(
    'MAX_QUERY_COST',
    10_000,
    1,
    10_000_000,
    "Highest estimated cost of an operation, in the schema's `@cost` points (`QUERY_TOO_EXPENSIVE`); at most RATE_LIMIT_POINTS.",
  ),
  maxStoreRequests: int(
    'MAX_STORE_REQUESTS',
    500,
    1,
    1_000_000,
    'Most store requests (DynamoDB and graph together) one operation may send; past it the fields still to read fail with `BUDGET_EXCEEDED`.',
  ),
  rateLimitPoints: int(
    'RATE_LIMIT_POINTS',
    20_000,
    1,
    1_000_000_000,
    "Each client's bucket of cost points (a signed-in account's, or an anonymous client address's); an operation whose estimate exceeds what is left is RATE_LIMITED (HTTP 429).",
  ),
  rateLimitPointsPerSecond: int(
    'RATE_LIMIT_POINTS_PER_SECOND',
    1_000,
    1,
    1_000_000_000,
    'How fast a bucket refills, in points a second.',
  ),
  operationTimeoutMs: OPERATION_TIMEOUT,
  logLevel: text('LOG_LEVEL', 'info', 'debug, info, warn, error or silent.', (v) =>
    LOG_LEVELS.includes(v) ? null : `must be one of ${LOG_LEVELS.join(', ')}`,
  ),
} as const;
