import { availableParallelism } from 'node:os';
import { type Env, type Setting, fail, int, isProduction, text } from './setting-kinds.js';

/** DynamoDB Local: the embedded engine, or an endpoint on this machine (real DynamoDB never is). */
function onDynamoDbLocal(env: Env): boolean {
  const endpoint = env.DYNAMODB_ENDPOINT ?? '';
  if (endpoint === '') return (env.AWS_REGION ?? '') === '';
  return URL.canParse(endpoint) && ['localhost', '127.0.0.1', '[::1]'].includes(new URL(endpoint).hostname);
}

const WRITE_APIS = ['batchWrite', 'transactWrite'] as const;
/** How many independent puts and deletes go out at once (BULK_WRITE_API): BatchWriteItem or TransactWriteItems. */
export type WriteApi = (typeof WRITE_APIS)[number];
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

/** Where the service runs and what it talks to: HTTP, DynamoDB, Neo4j, accounts and sign-in. */
export const PLATFORM_SETTINGS = {
  nodeEnv: text('NODE_ENV', 'development', '`production` turns off the development defaults below.'),
  port: int('PORT', 4000, 0, 65535, 'HTTP port.'),
  host: text('HOST', '127.0.0.1', 'Address to listen on.'),
  httpRequestTimeoutMs: httpRequestTimeout,
  httpHeadersTimeoutMs: {
    ...httpHeadersTimeout,
    parse(raw: string | undefined, env: Env): number {
      const value = httpHeadersTimeout.parse(raw, env);
      // Node refuses a headers timeout longer than the request timeout.
      if (value > httpRequestTimeout.parse(env.HTTP_REQUEST_TIMEOUT_MS, env))
        fail('HTTP_HEADERS_TIMEOUT_MS', 'must not be more than HTTP_REQUEST_TIMEOUT_MS');
      return value;
    },
  } satisfies Setting<number>,
  httpKeepAliveTimeoutMs: int(
    'HTTP_KEEP_ALIVE_TIMEOUT_MS',
    5_000,
    100,
    600_000,
    'How long an idle keep-alive connection may wait for its next request before it is closed.',
  ),
  dataDir: text(
    'DATA_DIR',
    './.data',
    'Where the embedded DynamoDB keeps its data between restarts, and the generated JWT secret (see JWT_SECRET).',
  ),
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
  dynamodbRequestsAtOnce: int(
    'DYNAMODB_REQUESTS_AT_ONCE',
    16,
    1,
    10_000,
    "DynamoDB requests of GraphQL operations in flight at once in this process, one client (account, else address) at most three quarters of them; a free one goes to the client with the fewest in flight, then to its operation with the fewest, so that one operation's backlog does not hold up another's requests. Raise it where DynamoDB serves many requests at once (see Performance).",
  ),
  bulkWriteApi: {
    name: 'BULK_WRITE_API',
    default: '`transactWrite` on DynamoDB Local, `batchWrite` otherwise',
    description:
      'How many independent items are written at once (fan-out and its removals, the seed): `batchWrite` (BatchWriteItem) or `transactWrite` (TransactWriteItems: several times faster on DynamoDB Local, twice the write capacity on DynamoDB). DynamoDB Local is the embedded engine or a `DYNAMODB_ENDPOINT` on loopback; see Performance.',
    parse(raw: string | undefined, env: Env): WriteApi {
      if (raw === undefined || raw === '') return onDynamoDbLocal(env) ? 'transactWrite' : 'batchWrite';
      const api = WRITE_APIS.find((name) => name === raw);
      return api ?? fail('BULK_WRITE_API', `must be batchWrite or transactWrite, got "${raw}"`);
    },
  } satisfies Setting<WriteApi>,
  awsRegion: text('AWS_REGION', '', 'Use real DynamoDB in this region (credentials from the usual AWS variables).'),
  tablePrefix: text('TABLE_PREFIX', 'social_', 'Prefix of the DynamoDB table name.', (v) =>
    /^[A-Za-z0-9_.-]{0,200}$/.test(v) ? null : 'may only contain letters, digits, _ . -',
  ),
  neo4jUri: text(
    'NEO4J_URI',
    '',
    'Keep the follow graph in Neo4j (e.g. neo4j://localhost:7687) instead of DynamoDB.',
    (v) => (/^(neo4j|bolt)(\+s|\+ssc)?:\/\/.+/.test(v) ? null : `must be a neo4j:// or bolt:// URI, got "${v}"`),
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
  jwtTtlSeconds: int(
    'JWT_TTL_SECONDS',
    900,
    60,
    24 * 3600,
    'How long an access token (the `token` of signUp, signIn and refreshSession) stays valid.',
  ),
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
  signInWindowSeconds: int(
    'SIGNIN_WINDOW_SECONDS',
    60,
    1,
    24 * 3600,
    'The sliding window SIGNIN_MAX_FAILURES and PASSWORD_CHECKS_PER_ADDRESS count in.',
  ),
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
  oidcAudience: text(
    'OIDC_AUDIENCE',
    '',
    "The audience (`aud`) the provider's tokens must name: this API's identifier at the provider.",
  ),
  oidcJwksUri: text(
    'OIDC_JWKS_URI',
    '',
    'Where the provider publishes its signing keys (JWKS); read when a token names a key not seen yet, and every 10 minutes.',
    (v) => (/^https?:\/\/\S+$/.test(v) ? null : `must be an http(s) URL, got "${v}"`),
  ),
  oidcJwksCooldownSeconds: int(
    'OIDC_JWKS_COOLDOWN_SECONDS',
    30,
    0,
    3600,
    'Least time between two reads of the JWKS, so that tokens naming unknown keys cannot flood the provider.',
  ),
} as const;
