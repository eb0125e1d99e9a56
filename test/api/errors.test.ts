import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/domain/errors.js';
import { CLIENT_CODES } from '../../src/graphql/errors.js';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { tableName } from '../../src/stores/dynamo/keys.js';
import { type GraphQLResponse, type TestApp, TEST_PASSWORD, startTestApp, uniqueHandle } from '../helpers/app.js';

/**
 * docs/reference/errors.md is the contract of what a client receives: every code with the HTTP status of each situation
 * it comes in. Each row is driven here through the public API, so the table can neither miss a code nor name a wrong status.
 */
const TABLE = readFileSync('docs/reference/errors.md', 'utf8');
const ROWS = [...TABLE.matchAll(/^\| `([A-Z_]+)` \| ([^|]+) \|/gm)].map((match) => ({
  code: match[1]!,
  http: match[2]!.trim(),
}));
const status = (http: string) => (http === 'WebSocket' ? null : Number(/^\d{3}/.exec(http)?.[0]));

interface Answer extends GraphQLResponse {
  headers: Headers;
}

async function send(
  app: TestApp,
  body: unknown,
  init: { token?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  const response = await fetch(`${app.url}/graphql`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, ...(JSON.parse(text) as object) };
}

/** A request other than a GraphQL one. */
async function request(app: TestApp, path: string, method: string): Promise<Answer> {
  const response = await fetch(`${app.url}${path}`, { method });
  return { status: response.status, headers: response.headers, ...((await response.json()) as object) };
}

/** A service whose table, with a signed-up account in it, is gone: every store request fails unexpectedly. */
async function withoutTable(send: (broken: TestApp, token: string) => Promise<Answer>): Promise<Answer> {
  const broken = await startTestApp({ WORKER_ENABLED: 'false' });
  try {
    const { token } = await broken.signUp();
    const client = createDocumentClient({ endpoint: broken.endpoint, tableName: tableName(broken.tablePrefix) });
    await client.send(new DeleteTableCommand({ TableName: tableName(broken.tablePrefix) }));
    client.destroy();
    return await send(broken, token);
  } finally {
    await broken.app.stop();
  }
}

let t: TestApp;
/** Small limits, so that each refusal takes one request to reach. */
let tight: TestApp;
let user: { id: string; handle: string; token: string };
let other: { id: string; handle: string; token: string };

beforeAll(async () => {
  t = await startTestApp({ WORKER_ENABLED: 'false' });
  tight = await startTestApp({
    WORKER_ENABLED: 'false',
    TABLE_PREFIX: t.tablePrefix,
    RATE_LIMIT_POINTS: '1000',
    RATE_LIMIT_POINTS_PER_SECOND: '1',
    MAX_QUERY_COST: '300',
    GRAPH_MAX_READS: '1',
    MAX_STORE_REQUESTS: '2',
    SIGNIN_MAX_FAILURES: '1',
  });
  [user, other] = await Promise.all([t.signUp(), t.signUp()]);
  // Friends of friends take two graph reads, one more than the tight service allows.
  await send(
    t,
    { query: 'mutation($id: ID!) { follow(userId: $id) { user { id } } }', variables: { id: other.id } },
    { token: user.token },
  );
});
afterAll(async () => {
  await tight.app.stop();
  await t.stop();
});

/** Each row of the table, as `<code> <HTTP>`: the request that gets it. Rows whose situation needs a stopped store or a socket name the test that drives it. */
const SCENARIOS: Record<string, (() => Promise<Answer>) | { drivenBy: string }> = {
  'BAD_USER_INPUT 200, on its field': () => send(t, { query: '{ publicTimeline(first: 500) { edges { cursor } } }' }),
  'BAD_USER_INPUT 400': () =>
    send(t, { query: 'query($n: Int) { publicTimeline(first: $n) { edges { cursor } } }', variables: { n: 'ten' } }),
  'UNAUTHENTICATED 401': () => send(t, { query: '{ viewer { id } }' }, { token: 'not-a-token' }),
  'UNAUTHENTICATED 200, on its field': () =>
    send(t, { query: 'mutation { createPost(input: { text: "hi" }) { post { id } } }' }),
  'FORBIDDEN 200, on its field': () =>
    send(
      t,
      { query: 'query($id: ID!) { user(id: $id) { timeline { edges { cursor } } } }', variables: { id: other.id } },
      { token: user.token },
    ),
  'NOT_FOUND 200, on its field': () =>
    send(
      t,
      { query: 'mutation { follow(userId: "usr_00000000000000000000000000") { user { id } } }' },
      { token: user.token },
    ),
  'HANDLE_TAKEN 200, on its field': () =>
    send(t, {
      query: `mutation { signUp(input: { handle: "${user.handle}", password: "${TEST_PASSWORD}" }) { token } }`,
    }),
  'RATE_LIMITED 429, `Retry-After`': async () => {
    const page = { query: '{ publicTimeline(first: 100) { edges { node { id author { handle } } } } }' };
    for (;;) {
      const answer = await send(tight, page, { token: other.token });
      if (answer.status !== 200) return answer;
    }
  },
  'RATE_LIMITED 200, on its field': async () => {
    const signIn = (password: string) => ({
      query: `mutation { signIn(input: { handle: "${user.handle}", password: "${password}" }) { token } }`,
    });
    await send(tight, signIn('a wrong password'));
    const answer = await send(tight, signIn('another wrong password'));
    // A window boundary between the two may leave the sliding estimate just below 1 failure: one more try at most.
    const limited = answer.errors?.some((error) => error.extensions?.code === 'RATE_LIMITED');
    return limited ? answer : send(tight, signIn('a third wrong password'));
  },
  'QUERY_TOO_DEEP 400': () =>
    send(t, { query: `{ viewer { ${'following { edges { node { '.repeat(4)}id${' } } }'.repeat(4)} } }` }),
  'TOO_MANY_ALIASES 400': () =>
    send(t, { query: `{ ${Array.from({ length: 16 }, (_, i) => `a${i}: __typename`).join(' ')} }` }),
  'TOO_MANY_TOKENS 400': () => send(t, { query: `{ ${'__typename '.repeat(2001)} }` }),
  'TOO_MANY_PASSWORD_CHECKS 400': () =>
    send(t, {
      query: `mutation { a: signIn(input: { handle: "x_x", password: "${TEST_PASSWORD}" }) { token } b: signIn(input: { handle: "x_x", password: "${TEST_PASSWORD}" }) { token } }`,
    }),
  'QUERY_TOO_EXPENSIVE 400': () =>
    send(t, {
      query:
        '{ viewer { followers(first: 100) { edges { node { followers(first: 100) { edges { node { id } } } } } } } }',
    }),
  'QUERY_TOO_EXPENSIVE 200, on its field': () =>
    send(tight, { query: '{ suggestedFollows { user { id } } }' }, { token: user.token }),
  'BUDGET_EXCEEDED 200, on its field': () =>
    send(tight, {
      query: '{ publicTimeline(first: 5) { edges { node { comments(first: 1) { edges { cursor } } } } } }',
    }),
  'TOO_MANY_SUBSCRIPTIONS WebSocket': { drivenBy: 'test/api/subscriptions.test.ts' },
  'BAD_REQUEST 400': () => send(t, 'not json'),
  'BAD_REQUEST 413': () => send(t, { query: `{ __typename } # ${'x'.repeat(101 * 1024)}` }),
  'BAD_REQUEST 405': () => request(t, '/healthz', 'DELETE'),
  'BAD_REQUEST 404': () => request(t, '/nowhere', 'GET'),
  'GRAPHQL_PARSE_FAILED 400': () => send(t, { query: '{ viewer {' }),
  'GRAPHQL_VALIDATION_FAILED 400': () => send(t, { query: '{ nope }' }),
  'OPERATION_RESOLUTION_FAILURE 400': () => send(t, { query: 'query A { __typename } query B { __typename }' }),
  'PERSISTED_QUERY_NOT_FOUND 200': () =>
    send(t, {
      extensions: {
        persistedQuery: { version: 1, sha256Hash: createHash('sha256').update('{ never sent }').digest('hex') },
      },
    }),
  'SERVICE_UNAVAILABLE 200, on its field': { drivenBy: 'test/api/resilience.test.ts' },
  'SERVICE_UNAVAILABLE 503, `Retry-After`': { drivenBy: 'test/api/resilience.test.ts' },
  'INTERNAL_SERVER_ERROR 200, on its field': () =>
    withoutTable((broken) => send(broken, { query: '{ user(handle: "someone") { id } }' })),
  // The account check outside any field, failing otherwise than for want of an answer.
  'INTERNAL_SERVER_ERROR 500': () =>
    withoutTable((broken, token) =>
      send(broken, { query: 'mutation { updateProfile(input: { bio: "x" }) { id } }' }, { token }),
    ),
};

describe('the error table (docs/reference/errors.md)', () => {
  it('lists every code the service gives out, and a way to each of its rows', () => {
    const listed = new Set(ROWS.map((row) => row.code));
    for (const code of [...ERROR_CODES, ...CLIENT_CODES, 'INTERNAL_SERVER_ERROR']) expect(listed, code).toContain(code);
    expect(ROWS.map((row) => `${row.code} ${row.http}`).sort()).toEqual(Object.keys(SCENARIOS).sort());
  });

  it.each(ROWS)('$code arrives as $http', async ({ code, http }) => {
    const scenario = SCENARIOS[`${code} ${http}`]!;
    if ('drivenBy' in scenario) {
      expect(readFileSync(scenario.drivenBy, 'utf8')).toContain(code);
      return;
    }
    const answer = await scenario();
    expect(answer.errors?.map((error) => error.extensions?.code)).toContain(code);
    expect(answer.status).toBe(status(http));
    // Refused before it ran: no data at all; else the failed field is null beside the others.
    if (answer.status !== 200) expect(answer.data).toBeUndefined();
    if (code === 'RATE_LIMITED') expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('gives a wrong password and an unknown handle the same answer', async () => {
    const signIn = (handle: string) =>
      send(t, { query: `mutation { signIn(input: { handle: "${handle}", password: "not the password" }) { token } }` });
    const [wrong, unknown] = await Promise.all([signIn(user.handle), signIn(uniqueHandle())]);
    const seen = ({ status, data, errors }: Answer) => ({ status, data, errors });
    expect(seen(wrong)).toEqual(seen(unknown));
  });
});
