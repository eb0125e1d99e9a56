import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { startApp, type RunningApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { type Logger, createLogger } from '../../src/logger.js';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { auditCounters } from '../../src/stores/dynamo/counter-audit.js';
import { tableName } from '../../src/stores/dynamo/keys.js';

export interface GraphQLResponse<T = Record<string, any>> {
  status: number;
  data?: T;
  errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, any> }[];
  extensions?: Record<string, any>;
}

export interface TestApp {
  app: RunningApp;
  url: string;
  endpoint: string;
  tablePrefix: string;
  /** Sends one operation over HTTP, as `token`'s user when given; `operationName` picks one of the document's. */
  gql<T = Record<string, any>>(
    query: string,
    variables?: Record<string, unknown>,
    token?: string,
    operationName?: string,
  ): Promise<GraphQLResponse<T>>;
  /** Sends one operation that must succeed and returns its data; throws with its errors otherwise. */
  gqlData<T = Record<string, any>>(query: string, variables?: Record<string, unknown>, token?: string): Promise<T>;
  /** Signs up a user with TEST_PASSWORD (unless `extra` gives another) and returns its id, handle, token and refresh token. */
  signUp(
    handle?: string,
    extra?: Record<string, unknown>,
  ): Promise<{ id: string; handle: string; token: string; refreshToken: string }>;
  /** Stops the service and fails if any counter drifted from its records, or records disagree (follows, counter shards). */
  stop(): Promise<void>;
}

let handleCounter = 0;
export function uniqueHandle(prefix = 'u'): string {
  handleCounter += 1;
  return `${prefix}_${randomBytes(4).toString('hex')}${handleCounter}`;
}

/**
 * Signs this test process's tokens. Given explicitly, so that no test app writes a generated
 * secret into the checkout's DATA_DIR; a test that wants the generated one passes JWT_SECRET ''
 * and a DATA_DIR of its own.
 */
const TEST_JWT_SECRET = randomBytes(32).toString('hex');

/** The password `signUp` gives every account unless told otherwise. */
export const TEST_PASSWORD = 'correct horse battery staple';

/**
 * Test apps hash passwords with N = 2^10 (unless `env` says otherwise): the scrypt code and its
 * stored format are the production ones, at a cost that lets a test sign up hundreds of accounts.
 */
const TEST_SCRYPT_LOG2_N = '10';

const TEST_RATE_LIMIT_POINTS = '1000000000';

/**
 * Tests sign up and in hundreds of times from 127.0.0.1, dozens at once: the per-address limits are
 * raised for them, and lowered again by the tests of those limits.
 */
const PER_ADDRESS_LIMITS = { PASSWORD_CHECKS_PER_ADDRESS: '1000000', PASSWORD_HASH_QUEUE_PER_ADDRESS: '1000' };

/** An account's deletion starts on its activity at once: only the tests of that wait hold a request across a closing. */
const ACCOUNT_DELETION_WAIT_MS = '0';

/**
 * Starts the service in-process on a free loopback port against the run's DynamoDB Local, with a
 * table of its own unless `env` names one (TABLE_PREFIX), as a restarted service would.
 */
export async function startTestApp(
  env: Record<string, string> = {},
  options: { logger?: Logger; clock?: () => number; dynamodbEndpoint?: string } = {},
): Promise<TestApp> {
  const endpoint = inject('dynamodbEndpoint');
  const tablePrefix = env.TABLE_PREFIX ?? `t${randomBytes(5).toString('hex')}_`;
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    TABLE_PREFIX: tablePrefix,
    LOG_LEVEL: 'silent',
    JWT_SECRET: TEST_JWT_SECRET,
    PASSWORD_SCRYPT_LOG2_N: TEST_SCRYPT_LOG2_N,
    // A test drives hundreds of operations from one address in seconds; the rate-limit tests set their own buckets.
    RATE_LIMIT_POINTS: TEST_RATE_LIMIT_POINTS,
    RATE_LIMIT_POINTS_PER_SECOND: TEST_RATE_LIMIT_POINTS,
    ...PER_ADDRESS_LIMITS,
    ACCOUNT_DELETION_WAIT_MS,
    ...env,
  });
  const app = await startApp({
    config,
    logger: options.logger ?? createLogger(config.logLevel as 'silent'),
    // The service may reach the engine another way (a stalling proxy); the helper's own checks read it directly.
    dynamodbEndpoint: options.dynamodbEndpoint ?? endpoint,
    clock: options.clock,
  });
  const url = app.url;

  async function gql<T>(
    query: string,
    variables?: Record<string, unknown>,
    token?: string,
    operationName?: string,
  ): Promise<GraphQLResponse<T>> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ query, variables, operationName }),
    });
    const body = (await response.json()) as Omit<GraphQLResponse<T>, 'status'>;
    return { status: response.status, ...body };
  }

  async function gqlData<T>(query: string, variables?: Record<string, unknown>, token?: string): Promise<T> {
    const result = await gql<T>(query, variables, token);
    if (result.errors || !result.data) throw new Error(`${query}: ${JSON.stringify(result.errors)}`);
    return result.data;
  }

  async function signUp(handle = uniqueHandle(), extra: Record<string, unknown> = {}) {
    const result = await gql<{ signUp: { token: string; refreshToken: string; user: { id: string; handle: string } } }>(
      'mutation($input: SignUpInput!) { signUp(input: $input) { token refreshToken user { id handle } } }',
      { input: { handle, password: TEST_PASSWORD, ...extra } },
    );
    if (!result.data?.signUp) throw new Error(`signUp failed: ${JSON.stringify(result.errors)}`);
    return {
      ...result.data.signUp.user,
      token: result.data.signUp.token,
      refreshToken: result.data.signUp.refreshToken,
    };
  }

  /** Stops the service, then checks that no counter drifted from its records during the file's tests. */
  async function stop() {
    await app.stop();
    const client = createDocumentClient({ endpoint, tableName: tableName(tablePrefix) });
    try {
      const { drift, mismatches } = await auditCounters(client, tableName(tablePrefix), {
        includeGraph: app.stores.graph.backend === 'dynamodb',
      });
      if (drift.length > 0) throw new Error(`counters drifted: ${JSON.stringify(drift)}`);
      if (mismatches.length > 0) throw new Error(`records disagree: ${JSON.stringify(mismatches)}`);
    } finally {
      client.destroy();
    }
  }

  return { app, url, endpoint, tablePrefix, gql, gqlData, signUp, stop };
}

export interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string;
  fields: Record<string, unknown>;
  /** Date.now() when it was logged. */
  at: number;
}

/** A logger that keeps every entry, at every level, for assertions. */
export function capturingLogger(
  entries: LogEntry[] = [],
  base: Record<string, unknown> = {},
): Logger & { entries: LogEntry[] } {
  const at =
    (level: LogEntry['level']) =>
    (msg: string, fields: Record<string, unknown> = {}) => {
      entries.push({ level, msg, fields: { ...base, ...fields }, at: Date.now() });
    };
  return {
    entries,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (fields) => capturingLogger(entries, { ...base, ...fields }),
  };
}

/** The `extensions.code` of each error, for assertions. */
export function errorCodes(response: GraphQLResponse): string[] {
  return (response.errors ?? []).map((e) => String(e.extensions?.code));
}
