import { availableParallelism } from 'node:os';
import { type Env, type Setting, bool, fail, int, text } from './setting-kinds.js';

const isProduction = (env: Env) => env.NODE_ENV === 'production';

/** DynamoDB Local: the embedded engine, or an endpoint on this machine (real DynamoDB never is). */
function onDynamoDbLocal(env: Env): boolean {
  const endpoint = env.DYNAMODB_ENDPOINT ?? '';
  if (endpoint === '') return (env.AWS_REGION ?? '') === '';
  return URL.canParse(endpoint) && ['localhost', '127.0.0.1', '[::1]'].includes(new URL(endpoint).hostname);
}

const WRITE_APIS = ['batchWrite', 'transactWrite'] as const;
/** How many independent puts and deletes go out at once (BULK_WRITE_API): BatchWriteItem or TransactWriteItems. */
export type WriteApi = (typeof WRITE_APIS)[number];
const CACHE_MODES = ['memory', 'redis', 'off'] as const;
export type CacheMode = (typeof CACHE_MODES)[number];
/** Also what a DynamoDB client built without settings (tests, scripts) waits: a healthy DynamoDB Local busy on two cores can take over a second to accept a connection; a dead one never does. */
export const DYNAMO_TIMEOUT_DEFAULTS = { connectMs: 3_000, attemptMs: 3_000, maxAttempts: 3, totalMs: 6_000 } as const;

const httpRequestTimeout = int(
  'HTTP_REQUEST_TIMEOUT_MS',
  30_000,
  100,
  3_600_000,
  'Longest time a client may take to send a whole request (headers and body); past it the server answers 408 and closes the connection.',
);
const httpHeadersTimeout = int(
  'HTTP_HEADERS_TIMEOUT_MS',
  10_000,
  100,
  3_600_000,
  "Longest time a client may take to send a request's headers (at most HTTP_REQUEST_TIMEOUT_MS); past it: 408, connection closed.",
);
const hashConcurrency = int(
  'PASSWORD_HASH_CONCURRENCY',
  1,
  1,
  256,
  "Password hashes (scrypt) one process runs at once, all but one of them at most for one client address; the others wait, served in turn by address (see Authentication). Default: the CPU cores, at most one less than libuv's thread pool (UV_THREADPOOL_SIZE, 4), which file and DNS work share.",
);
const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'];
/** Kinds start with a letter: `__proto__` is no kind, since the DynamoDB document client drops that key when it reads a map. */
const REACTION_KIND = /^[a-z][a-z_]{0,19}$/;
const MAX_REACTION_KINDS = 20;
const DEFAULT_REACTION_KINDS = 'like,love,laugh,wow,sad,clap';

/**
 * Every environment variable the service reads, declared once (name, default, meaning): loadConfig
 * validates them, and docs/reference/configuration.md is generated from them (`npm run docs`).
 */
export const SETTINGS = {
  nodeEnv: text('NODE_ENV', 'development', '`production` turns off the development defaults below.'),
  port: int('PORT', 4000, 0, 65535, 'HTTP port.'),
  host: text('HOST', '127.0.0.1', 'Address to listen on.'),
  httpRequestTimeoutMs: httpRequestTimeout,
  httpHeadersTimeoutMs: {
    ...httpHeadersTimeout,
    parse(raw: string | undefined, env: Env): number {
      const value = httpHeadersTimeout.parse(raw, env);
      // Node refuses a headers timeout longer than the request timeout.
      if (value > httpRequestTimeout.parse(env.HTTP_REQUEST_TIMEOUT_MS, env)) fail('HTTP_HEADERS_TIMEOUT_MS', 'must not be more than HTTP_REQUEST_TIMEOUT_MS');
      return value;
    },
  } satisfies Setting<number>,
  httpKeepAliveTimeoutMs: int('HTTP_KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000, 'How long an idle keep-alive connection may wait for its next request before it is closed.'),
  dataDir: text('DATA_DIR', './.data', 'Where the embedded DynamoDB keeps its data between restarts, and the generated JWT secret (see JWT_SECRET).'),
  dynamodbLocalRestarts: int(
    'DYNAMODB_LOCAL_RESTARTS',
    5,
    0,
    100,
    'Times in a row the service starts the embedded DynamoDB Local again after it died (waiting 1 s, 2 s, 4 s, ... up to 30 s before each) before it gives up and exits 1.',
  ),
  dynamodbEndpoint: text('DYNAMODB_ENDPOINT', '', 'Use the DynamoDB at this URL instead of the embedded one.', (v) =>
    /^https?:\/\/.+/.test(v) ? null : `must be an http(s) URL, got "${v}"`,
  ),
  dynamodbConnectTimeoutMs: int(
    'DYNAMODB_CONNECT_TIMEOUT_MS',
    DYNAMO_TIMEOUT_DEFAULTS.connectMs,
    10,
    60_000,
    'Longest wait for a connection to DynamoDB; past it the attempt fails and is retried.',
  ),
  dynamodbAttemptTimeoutMs: int(
    'DYNAMODB_ATTEMPT_TIMEOUT_MS',
    DYNAMO_TIMEOUT_DEFAULTS.attemptMs,
    10,
    600_000,
    'Longest wait for the answer to one DynamoDB request; past it the attempt fails and is retried (see DYNAMODB_TIMEOUT_MS).',
  ),
  dynamodbMaxAttempts: int(
    'DYNAMODB_MAX_ATTEMPTS',
    DYNAMO_TIMEOUT_DEFAULTS.maxAttempts,
    1,
    10,
    'Attempts at one DynamoDB call (the first and its retries, with backoff) within DYNAMODB_TIMEOUT_MS.',
  ),
  dynamodbTimeoutMs: int(
    'DYNAMODB_TIMEOUT_MS',
    DYNAMO_TIMEOUT_DEFAULTS.totalMs,
    10,
    600_000,
    'Longest time one DynamoDB call may take, retries included; past it the call is abandoned and its field fails with SERVICE_UNAVAILABLE.',
  ),
  bulkWriteApi: {
    name: 'BULK_WRITE_API',
    default: '`transactWrite` on DynamoDB Local, `batchWrite` otherwise',
    description:
      'How many independent items are written at once (fan-out, trims, the seed): `batchWrite` (BatchWriteItem) or `transactWrite` (TransactWriteItems: several times faster on DynamoDB Local, twice the write capacity on DynamoDB). DynamoDB Local is the embedded engine or a `DYNAMODB_ENDPOINT` on loopback; see Performance.',
    parse(raw: string | undefined, env: Env): WriteApi {
      if (raw === undefined || raw === '') return onDynamoDbLocal(env) ? 'transactWrite' : 'batchWrite';
      const api = WRITE_APIS.find((name) => name === raw);
      return api ?? fail('BULK_WRITE_API', `must be batchWrite or transactWrite, got "${raw}"`);
    },
  } satisfies Setting<WriteApi>,
  awsRegion: text('AWS_REGION', '', 'Use real DynamoDB in this region (credentials from the usual AWS variables).'),
  tablePrefix: text('TABLE_PREFIX', 'social_', 'Prefix of the DynamoDB table name.', (v) => (/^[A-Za-z0-9_.-]{0,200}$/.test(v) ? null : 'may only contain letters, digits, _ . -')),
  neo4jUri: text('NEO4J_URI', '', 'Keep the follow graph in Neo4j (e.g. neo4j://localhost:7687) instead of DynamoDB.', (v) =>
    /^(neo4j|bolt)(\+s|\+ssc)?:\/\/.+/.test(v) ? null : `must be a neo4j:// or bolt:// URI, got "${v}"`,
  ),
  neo4jUser: text('NEO4J_USER', 'neo4j', 'Neo4j user.'),
  neo4jPassword: text('NEO4J_PASSWORD', '', 'Neo4j password.'),
  neo4jTimeoutMs: int(
    'NEO4J_TIMEOUT_MS',
    5_000,
    10,
    600_000,
    'Longest time one Neo4j statement may take: to get a connection, to run (a transaction timeout), and its retries; past it: SERVICE_UNAVAILABLE.',
  ),
  graphMaxReads: int(
    'GRAPH_MAX_READS',
    500,
    1,
    1_000_000,
    'Most graph reads one request may make (a follow list or list page, or a lookup of up to 100 counts, edges or interests); past it: QUERY_TOO_EXPENSIVE (see Social graph).',
  ),
  graphMaxEdges: int(
    'GRAPH_MAX_EDGES',
    12_000,
    1,
    10_000_000,
    'Most graph entries one request may read (follow list entries, edges and users looked up); past it: QUERY_TOO_EXPENSIVE (see Social graph).',
  ),
  jwtSecret: {
    name: 'JWT_SECRET',
    default: '(generated in DATA_DIR)',
    description:
      'HS256 signing secret, at least 32 characters. Required when NODE_ENV=production; otherwise, when unset, a random secret is generated on first start and kept in DATA_DIR/jwt-secret (mode 0600).',
    /** '' when unset: the service then uses the generated secret (see src/auth/signing-secret.ts). */
    parse(raw: string | undefined, env: Env): string {
      if (raw === undefined || raw === '') {
        if (isProduction(env)) fail('JWT_SECRET', 'must be set when NODE_ENV=production');
        return '';
      }
      if (raw.length < 32) fail('JWT_SECRET', 'must be at least 32 characters');
      return raw;
    },
  } satisfies Setting<string>,
  jwtTtlSeconds: int('JWT_TTL_SECONDS', 900, 60, 24 * 3600, 'How long an access token (the `token` of signUp, signIn and refreshSession) stays valid.'),
  refreshTtlSeconds: int(
    'REFRESH_TTL_SECONDS',
    30 * 24 * 3600,
    300,
    365 * 24 * 3600,
    'How long a refresh token stays valid if unused; each refresh gives a new one for as long again (see Authentication).',
  ),
  passwordScryptLog2N: int(
    'PASSWORD_SCRYPT_LOG2_N',
    17,
    10,
    20,
    'scrypt cost of new password hashes: N = 2^value (r = 8, p = 1; 2^17 takes 128 MiB). A hash made with a lower value is made again at the next sign-in.',
  ),
  signInMaxFailures: int(
    'SIGNIN_MAX_FAILURES',
    10,
    1,
    10_000,
    'Failed password checks per handle, and per client address, within the last SIGNIN_WINDOW_SECONDS (a sliding window); past them every attempt is RATE_LIMITED until enough of them have aged out.',
  ),
  signInWindowSeconds: int('SIGNIN_WINDOW_SECONDS', 60, 1, 24 * 3600, 'The sliding window SIGNIN_MAX_FAILURES and PASSWORD_CHECKS_PER_ADDRESS count in.'),
  passwordChecksPerAddress: int(
    'PASSWORD_CHECKS_PER_ADDRESS',
    20,
    1,
    1_000_000,
    'Password checks (signIn, the current password of changePassword and deleteAccount) and sign-ups with a password per client address within the last SIGNIN_WINDOW_SECONDS, right or wrong; past them each is RATE_LIMITED.',
  ),
  passwordHashConcurrency: {
    ...hashConcurrency,
    default: 'CPU cores, at most UV_THREADPOOL_SIZE − 1',
    parse(raw: string | undefined, env: Env): number {
      if (raw !== undefined && raw !== '') return hashConcurrency.parse(raw, env);
      const threadPool = Number(env.UV_THREADPOOL_SIZE) || 4;
      return Math.max(1, Math.min(availableParallelism(), threadPool - 1));
    },
  } satisfies Setting<number>,
  passwordHashQueuePerAddress: int(
    'PASSWORD_HASH_QUEUE_PER_ADDRESS',
    4,
    0,
    1000,
    'Password hashes one client address may have waiting for PASSWORD_HASH_CONCURRENCY; past them its next password check or sign-up is RATE_LIMITED at once.',
  ),
  passwordHashQueueTimeoutMs: int(
    'PASSWORD_HASH_QUEUE_TIMEOUT_MS',
    5_000,
    1,
    600_000,
    'Longest time a password hash waits for PASSWORD_HASH_CONCURRENCY; past it the request is RATE_LIMITED (retryAfterSeconds: this, rounded up).',
  ),
  trustedProxyHops: int(
    'TRUSTED_PROXY_HOPS',
    0,
    0,
    10,
    'Reverse proxies in front of the service that append the client address to X-Forwarded-For; 0 takes the TCP peer as the client (see Authentication).',
  ),
  oidcIssuer: text(
    'OIDC_ISSUER',
    '',
    "An identity provider's issuer (`iss`) whose access tokens the service accepts too; needs OIDC_AUDIENCE and OIDC_JWKS_URI (see Authentication).",
    (v) => (/^https?:\/\/\S+$/.test(v) ? null : `must be an http(s) URL, got "${v}"`),
  ),
  oidcAudience: text('OIDC_AUDIENCE', '', "The audience (`aud`) the provider's tokens must name: this API's identifier at the provider."),
  oidcJwksUri: text('OIDC_JWKS_URI', '', 'Where the provider publishes its signing keys (JWKS); read when a token names a key not seen yet, and every 10 minutes.', (v) =>
    /^https?:\/\/\S+$/.test(v) ? null : `must be an http(s) URL, got "${v}"`,
  ),
  oidcJwksCooldownSeconds: int(
    'OIDC_JWKS_COOLDOWN_SECONDS',
    30,
    0,
    3600,
    'Least time between two reads of the JWKS, so that tokens naming unknown keys cannot flood the provider.',
  ),
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
      const kinds = (raw === undefined || raw === '' ? DEFAULT_REACTION_KINDS : raw).split(',').map((kind) => kind.trim());
      if (kinds.length > MAX_REACTION_KINDS) fail('REACTION_KINDS', `may list at most ${MAX_REACTION_KINDS} kinds, got ${kinds.length}`);
      const bad = kinds.find((kind) => !REACTION_KIND.test(kind));
      if (bad !== undefined) fail('REACTION_KINDS', `"${bad}" is not 1-20 characters of a-z and _ starting with a letter`);
      if (new Set(kinds).size !== kinds.length) fail('REACTION_KINDS', 'lists a kind twice');
      return kinds;
    },
  } satisfies Setting<readonly string[]>,
  // At most 61: a post's creating transaction holds its shards beside up to 39 other items (tags, mention tasks, ...) within DynamoDB's 100.
  counterShards: int('COUNTER_SHARDS', 8, 1, 61, 'Counter shards of a hot post (one by an author with at least HOT_AUTHOR_FOLLOWERS followers); other posts have one.'),
  hotAuthorFollowers: int('HOT_AUTHOR_FOLLOWERS', 1000, 0, 100_000_000, "Follower count from which an author's new posts get sharded counters."),
  counterShardsMax: int('COUNTER_SHARDS_MAX', 64, 1, 64, 'Most counter shards a post that turns hot after creation is raised to (doubling; 1: never raised). See Counters.'),
  counterShardWritesPerSecond: int(
    'COUNTER_SHARD_WRITES_PER_SECOND',
    50,
    1,
    100_000,
    "Counter writes a second one instance may send to each of a post's shards; past it, it doubles the post's shards (up to COUNTER_SHARDS_MAX).",
  ),
  workerEnabled: bool('WORKER_ENABLED', () => true, 'true', 'Run the fan-out worker inside the API process (`npm run worker` runs it alone).'),
  fanoutMaxFollowers: int(
    'FANOUT_MAX_FOLLOWERS',
    10_000,
    0,
    100_000_000,
    "Authors with more followers are not fanned out: their posts are merged into followers' home timelines at read time.",
  ),
  outboxAuthorsTtlMs: int('OUTBOX_AUTHORS_TTL_MS', 10_000, 0, 3_600_000, 'How long a process keeps the list of authors who are not fanned out before reading it again.'),
  timelineMaxEntries: int('TIMELINE_MAX_ENTRIES', 800, 1, 100_000, 'Entries a home timeline keeps; older ones are trimmed.'),
  timelineSizeSampleEvery: int(
    'TIMELINE_SIZE_SAMPLE_EVERY',
    32,
    1,
    10_000,
    "A home timeline's size is counted on about one write in this many (1: every write); see Posts and timelines.",
  ),
  notificationsMax: int('NOTIFICATIONS_MAX', 500, 1, 10_000, 'Notification groups a user keeps; older ones are trimmed.'),
  followBackfillPosts: int('FOLLOW_BACKFILL_POSTS', 100, 0, 10_000, "How many of the followee's newest posts a follow copies into the follower's home timeline."),
  timelineShards: int('TIMELINE_SHARDS', 4, 1, 64, 'Partitions each tag timeline and the public timeline are spread over.'),
  trendsWindowHours: int(
    'TRENDS_WINDOW_HOURS',
    24,
    1,
    168,
    'The recent window trendingTags counts tag uses in, in hours (hourly buckets: the current hour and the ones before it).',
  ),
  trendsShards: int('TRENDS_SHARDS', 4, 1, 16, "Shards each hour's tag counts and each tag's total are spread over, by post id (as hot counters are)."),
  queueShards: int('QUEUE_SHARDS', 4, 1, 64, 'Partitions the durable task queue is spread over.'),
  queuePollMs: int('QUEUE_POLL_MS', 1000, 10, 600_000, 'How often an idle worker looks for tasks (a worker in the API process is also woken by new posts).'),
  queueLeaseMs: int('QUEUE_LEASE_MS', 30_000, 100, 3_600_000, 'How long a claimed task stays with its worker without a checkpoint before another worker may take it over.'),
  queueMaxAttempts: int('QUEUE_MAX_ATTEMPTS', 10, 1, 1000, 'Failed runs after which a task is moved to the dead-letter list (DEADLETTER) instead of retried.'),
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
      const mode = CACHE_MODES.find((name) => name === raw) ?? fail('CACHE', `must be memory, redis or off, got "${raw}"`);
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
  cacheMaxEntries: int('CACHE_MAX_ENTRIES', 100_000, 1, 100_000_000, 'Items a `memory` cache keeps; the least recently used go first.'),
  introspection: bool('INTROSPECTION', (env) => !isProduction(env), 'on, off in production', 'Allow schema introspection.'),
  graphiql: bool('GRAPHIQL', (env) => !isProduction(env), 'on, off in production', 'Serve GraphiQL at /graphiql.'),
  batching: bool('BATCHING', () => true, 'on', 'Batch and cache store lookups per request (DataLoader). `false` makes every lookup its own call: the benchmark baseline.'),
  costExtensions: bool('COST_EXTENSIONS', (env) => !isProduction(env), 'on, off in production', 'Add `extensions.cost` (backend requests and capacity) to every response.'),
  metrics: bool('METRICS', () => true, 'on', 'Serve Prometheus metrics at `/metrics` (a standalone worker serves them on WORKER_METRICS_PORT); see Operations.'),
  workerMetricsPort: int('WORKER_METRICS_PORT', 9464, 0, 65535, 'Port on which `npm run worker` serves `/metrics` (on HOST); 0 picks a free port, logged at start.'),
  otelExporterOtlpEndpoint: text(
    'OTEL_EXPORTER_OTLP_ENDPOINT',
    '',
    'Export OpenTelemetry traces over OTLP/HTTP to this base URL (spans go to `<url>/v1/traces`); unset, nothing is traced, at no cost (see Operations).',
    (v) => (/^https?:\/\/\S+$/.test(v) ? null : `must be an http(s) URL, got "${v}"`),
  ),
  otelServiceName: text('OTEL_SERVICE_NAME', '', '`service.name` of the spans; unset: `social-graph-api`, or `social-graph-worker` for `npm run worker`.'),
  maxQueryDepth: int('MAX_QUERY_DEPTH', 10, 1, 100, 'Deepest nesting of fields an operation may have (`QUERY_TOO_DEEP`).'),
  maxQueryAliases: int('MAX_QUERY_ALIASES', 15, 0, 1000, 'Most aliased fields an operation may have (`TOO_MANY_ALIASES`).'),
  maxQueryTokens: int('MAX_QUERY_TOKENS', 2000, 100, 100_000, 'Most tokens a document may have; the parser stops there (`TOO_MANY_TOKENS`).'),
  redisUrl: text(
    'REDIS_URL',
    '',
    'A Redis server (redis://host:port) that API instances and workers share: live events (subscriptions) go through it to every API instance, and the cache lives there (see Subscriptions, CACHE); unset, both stay in the process.',
    (v) => (/^rediss?:\/\/\S+$/.test(v) ? null : `must be a redis:// or rediss:// URL, got "${v}"`),
  ),
  redisConnectTimeoutMs: int('REDIS_CONNECT_TIMEOUT_MS', 2_000, 10, 60_000, 'Longest wait for a connection to Redis, at start and at each reconnect.'),
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
  rateLimitPointsPerSecond: int('RATE_LIMIT_POINTS_PER_SECOND', 1_000, 1, 1_000_000_000, 'How fast a bucket refills, in points a second.'),
  operationTimeoutMs: int(
    'OPERATION_TIMEOUT_MS',
    10_000,
    100,
    600_000,
    'Longest an operation over HTTP may run; past it the request answers 503 SERVICE_UNAVAILABLE with Retry-After and its store calls still running are abandoned.',
  ),
  logLevel: text('LOG_LEVEL', 'info', 'debug, info, warn, error or silent.', (v) => (LOG_LEVELS.includes(v) ? null : `must be one of ${LOG_LEVELS.join(', ')}`)),
} as const;
