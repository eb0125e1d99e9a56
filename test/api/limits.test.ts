import { createHash } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_CHECK_COST } from '../../src/graphql/limits/query-limits.js';
import { totals } from '../../src/observability/cost.js';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { tableName } from '../../src/stores/dynamo/keys.js';
import {
  TEST_PASSWORD,
  capturingLogger,
  errorCodes,
  startTestApp,
  uniqueHandle,
  type GraphQLResponse,
  type TestApp,
} from '../helpers/app.js';

// The in-process worker polls its queue; without it every store request in this process is one of ours.
const QUIET = { WORKER_ENABLED: 'false' };

let t: TestApp;
let token: string;
let handle: string;

beforeAll(async () => {
  t = await startTestApp(QUIET);
  ({ token, handle } = await t.signUp());
});
afterAll(async () => {
  await t.stop();
});

/** Runs `send` and checks that no DynamoDB or graph request was made meanwhile. */
async function withoutStoreRequests<T>(send: () => Promise<T>): Promise<T> {
  const before = structuredClone(totals);
  const result = await send();
  expect(totals).toEqual(before);
  return result;
}

async function refused(query: string, variables?: Record<string, unknown>): Promise<GraphQLResponse> {
  const result = await withoutStoreRequests(() => t.gql(query, variables, token));
  expect(result.data).toBeUndefined();
  expect(result.status).toBe(400);
  // Refused before execution: no store request was sent (nor the account check).
  expect(result.extensions?.cost?.requests ?? 0).toBe(0);
  return result;
}

const FOLLOWING_11_LEVELS =
  '{ viewer { following(first: 1) { edges { node { following(first: 1) { edges { node { following(first: 1) { edges { node { id } } } } } } } } } } }';
const FOLLOWING_10_LEVELS =
  '{ viewer { following(first: 1) { edges { node { following(first: 1) { edges { node { following(first: 1) { pageInfo { endCursor } } } } } } } } } }';

describe('query depth', () => {
  it(`refuses an operation deeper than 10 levels with QUERY_TOO_DEEP before any store request`, async () => {
    const result = await refused(FOLLOWING_11_LEVELS);
    expect(errorCodes(result)).toEqual(['QUERY_TOO_DEEP']);
    expect(result.errors![0]!.message).toContain('11 levels deep; at most 10');
    expect(result.errors![0]!.extensions).toMatchObject({ depth: 11, maxDepth: 10 });
  });

  it('lets an operation of 10 levels through', async () => {
    const result = await t.gql(FOLLOWING_10_LEVELS, {}, token);
    expect(errorCodes(result)).not.toContain('QUERY_TOO_DEEP');
    // The same shape of query reaches the stores once it is allowed.
    expect(result.extensions?.cost.dynamodb.requests).toBeGreaterThan(0);
  });

  it('counts the depth through fragments', async () => {
    const query = `query { viewer { ...Deep } } fragment Deep on User { following(first: 1) { edges { node { following(first: 1) { edges { node { following(first: 1) { edges { node { id } } } } } } } } } }`;
    const result = await refused(query);
    expect(errorCodes(result)).toEqual(['QUERY_TOO_DEEP']);
  });
});

describe('aliases', () => {
  const aliased = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: viewer { id }`).join(' ')} }`;

  it('refuses more than 15 aliases with TOO_MANY_ALIASES before any store request', async () => {
    const result = await refused(aliased(16));
    expect(errorCodes(result)).toEqual(['TOO_MANY_ALIASES']);
    expect(result.errors![0]!.extensions).toMatchObject({ aliases: 16, maxAliases: 15 });
  });

  it('counts a fragment once for every place it is spread', async () => {
    const fragment = `fragment Many on User { ${Array.from({ length: 8 }, (_, i) => `h${i}: handle`).join(' ')} }`;
    const result = await refused(`{ viewer { ...Many } other: viewer { ...Many } } ${fragment}`);
    expect(errorCodes(result)).toEqual(['TOO_MANY_ALIASES']);
    expect(result.errors![0]!.extensions).toMatchObject({ aliases: 17 });
  });

  it('answers 15 aliases', async () => {
    const result = await t.gql(aliased(15), {}, token);
    expect(result.errors).toBeUndefined();
    expect(result.data!.a14).toEqual(result.data!.a0);
  });
});

describe('password checks', () => {
  const signIn = (alias: string, password: string) =>
    `${alias}: signIn(input: { handle: "${handle}", password: "${password}" }) { token }`;
  const signUp = (alias: string, newHandle: string) =>
    `${alias}: signUp(input: { handle: "${newHandle}", password: "${TEST_PASSWORD}" }) { token }`;

  it('refuses more than one password mutation in an operation with TOO_MANY_PASSWORD_CHECKS before any store request', async () => {
    const fresh = [uniqueHandle('never'), uniqueHandle('never')];
    const cases = [
      `mutation { ${signIn('a', TEST_PASSWORD)} ${signIn('b', TEST_PASSWORD)} }`,
      `mutation { ${signUp('a', fresh[0]!)} ${signUp('b', fresh[1]!)} }`,
      `mutation { ${signIn('a', 'a wrong password')} ${signUp('b', fresh[0]!)} }`,
      `mutation { ...SignIn other: changePassword(currentPassword: "${TEST_PASSWORD}", newPassword: "another long password") } fragment SignIn on Mutation { ${signIn('a', TEST_PASSWORD)} }`,
      `mutation { ...SignIn ...SignIn } fragment SignIn on Mutation { ${signIn('a', TEST_PASSWORD)} }`,
    ];
    for (const query of cases) {
      const result = await refused(query);
      expect(errorCodes(result)).toEqual(['TOO_MANY_PASSWORD_CHECKS']);
      expect(result.errors![0]!.extensions).toMatchObject({ passwordChecks: 2, maxPasswordChecks: 1 });
    }
    // Nothing happened: the handles are free, the password unchanged.
    for (const free of fresh)
      expect((await t.gql('query($h: String!) { user(handle: $h) { id } }', { h: free })).data!.user).toBeNull();
    expect((await t.gql(`mutation { ${signIn('a', TEST_PASSWORD)} }`)).data!.a.token).toEqual(expect.any(String));
  });

  it('answers one password mutation beside other fields', async () => {
    const result = await t.gql(
      `mutation { ${signIn('a', TEST_PASSWORD)} b: updateProfile(input: { bio: "one check" }) { bio } }`,
      {},
      token,
    );
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({ a: { token: expect.any(String) }, b: { bio: 'one check' } });
  });
});

describe('tokens', () => {
  it('refuses a document of more than 2,000 tokens with TOO_MANY_TOKENS before any store request', async () => {
    const result = await refused(`{ viewer { ${'id '.repeat(2000)} } }`);
    expect(errorCodes(result)).toEqual(['TOO_MANY_TOKENS']);
    expect(result.errors![0]!.message).toBe('The document has more than 2000 tokens; at most 2000 are allowed');
    expect(result.errors![0]!.extensions).toEqual({ code: 'TOO_MANY_TOKENS', maxTokens: 2000 });
  });

  it('parses a document just under the limit', async () => {
    // 1,982 tokens, all of them distinct work for the parser; the resolver then refuses more than 100 ids.
    const result = await t.gql(`{ users(ids: [${'"usr_x" '.repeat(1972)}]) { id } }`, {}, token);
    expect(errorCodes(result)).toEqual(['BAD_USER_INPUT']);
    expect(result.errors![0]!.extensions!.field).toBe('ids');
  });
});

describe('cost', () => {
  /** Each request here is signed in: its account check is 20 points of every estimate. */
  const CHECK = ACCOUNT_CHECK_COST;
  const followersOfFollowers = (first: string) =>
    `query($handle: String!${first === '$n' ? ', $n: Int' : ''}) { user(handle: $handle) { followers(first: ${first}) { edges { node { followers(first: ${first}) { edges { node { followers(first: ${first}) { totalCount } } } } } } } } }`;
  /** user(handle:) (1: the handle) + the user (1) + followers (20) + n × (a user (1) + followers (20) + n × (a user (1) + followers (20) + totalCount (1))). */
  const nestedCost = (n: number) => 1 + 1 + 20 + n * (1 + 20 + n * (1 + 20 + 1));

  it('refuses nested followers(first: 100) up front with QUERY_TOO_EXPENSIVE', async () => {
    const result = await refused(followersOfFollowers('100'), { handle });
    expect(errorCodes(result)).toEqual(['QUERY_TOO_EXPENSIVE']);
    expect(result.errors![0]!.extensions).toMatchObject({ cost: nestedCost(100) + CHECK, maxCost: 10_000 });
  });

  it('reads `first` from the variables', async () => {
    const tooMuch = await refused(followersOfFollowers('$n'), { handle, n: 100 });
    expect(errorCodes(tooMuch)).toEqual(['QUERY_TOO_EXPENSIVE']);
    const cheap = await t.gql(followersOfFollowers('$n'), { handle, n: 2 }, token);
    expect(cheap.errors).toBeUndefined();
    expect(cheap.extensions!.cost.estimated).toBe(nestedCost(2) + CHECK);
  });

  it('measures a variable sent as null as null: `first: null` runs, and is counted, at the default page size', async () => {
    const withDefault = followersOfFollowers('$n').replace('$n: Int', '$n: Int = 1');
    const atDefaultPageSize = await t.gql(withDefault, { handle, n: 20 }, token);
    expect(atDefaultPageSize.extensions!.cost.estimated).toBe(nestedCost(20) + CHECK);
    const sentNull = await t.gql(withDefault, { handle, n: null }, token);
    expect(sentNull.extensions!.cost.estimated).toBe(nestedCost(20) + CHECK);
    const literalNull = await t.gql(followersOfFollowers('null').replace(', $n: Int', ''), { handle }, token);
    expect(literalNull.extensions!.cost.estimated).toBe(nestedCost(20) + CHECK);
    // Left out, the variable takes its declared default of 1, and so does the measure.
    const leftOut = await t.gql(withDefault, { handle }, token);
    expect(leftOut.errors).toBeUndefined();
    expect(leftOut.extensions!.cost.estimated).toBe(nestedCost(1) + CHECK);
  });

  it('reads a variable named like a member of every object (constructor) as any other, default included', async () => {
    const query = `query($handle: String!, $constructor: Int = 100) { user(handle: $handle) { followers(first: $constructor) { edges { node { followers(first: $constructor) { edges { node { followers(first: $constructor) { totalCount } } } } } } } } }`;
    const result = await refused(query, { handle });
    expect(errorCodes(result)).toEqual(['QUERY_TOO_EXPENSIVE']);
    expect(result.errors![0]!.extensions!.cost).toBe(nestedCost(100) + CHECK);
  });

  it('counts lists at their assumed size of 20 when `first` is left out, and every alias', async () => {
    const once = '{ viewer { followers { edges { node { handle followerCount } } } } }';
    // The viewer (1) + followers (20) + 20 × (a user (1) + followerCount (1)).
    expect((await t.gql(once, {}, token)).extensions!.cost.estimated).toBe(CHECK + 1 + 20 + 20 * 2);
    const twice =
      '{ viewer { a: followers { edges { node { handle followerCount } } } b: followers { edges { node { handle followerCount } } } } }';
    expect((await t.gql(twice, {}, token)).extensions!.cost.estimated).toBe(CHECK + 1 + 2 * (20 + 20 * 2));
  });

  it('leaves out what @skip or @include leaves out, with the variables', async () => {
    const query =
      'query($s: Boolean!) { viewer { followers(first: 100) @skip(if: $s) { edges { node { id } } } ... @include(if: $s) { id } } }';
    expect((await t.gql(query, { s: true }, token)).extensions!.cost.estimated).toBe(CHECK + 1);
    expect((await t.gql(query, { s: false }, token)).extensions!.cost.estimated).toBe(CHECK + 1 + 20 + 100);
  });

  it('counts a separation path at its longest (7 users), `via` at 3 and mentions at 20', async () => {
    const underPath = 'followers(first: 100) { edges { node { followers(first: 10) { edges { node { id } } } } } }';
    /** followers (20) + 100 × (a user (1) + followers (20) + 10 users). */
    const under = 20 + 100 * (1 + 20 + 10);
    const result = await refused(`query($a: ID!) { degreesOfSeparation(from: $a, to: $a) { path { ${underPath} } } }`, {
      a: 'usr_00000000000000000000000000',
    });
    expect(errorCodes(result)).toEqual(['QUERY_TOO_EXPENSIVE']);
    expect(result.errors![0]!.extensions!.cost).toBe(CHECK + 400 + 7 * (1 + under));
    const via = await refused(`{ suggestedFollows(first: 100) { via { ${underPath} } } }`);
    expect(via.errors![0]!.extensions!.cost).toBe(CHECK + 200 + 100 * (3 * (1 + under)));
    const mentions = await refused(`query($p: ID!) { post(id: $p) { mentions { ${underPath} } } }`, {
      p: 'pst_00000000000000000000000000',
    });
    expect(mentions.errors![0]!.extensions!.cost).toBe(CHECK + 1 + 20 * (1 + under));
  });

  it('leaves GraphiQL’s introspection query alone, and holds introspection to the alias limit', async () => {
    const result = await t.gql(getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true }));
    expect(result.errors).toBeUndefined();
    expect(result.data!.__schema.queryType.name).toBe('Query');
    const aliased = await refused(
      `{ __schema { ${Array.from({ length: 16 }, (_, i) => `t${i}: types { fields { type { name } } }`).join(' ')} } }`,
    );
    expect(errorCodes(aliased)).toEqual(['TOO_MANY_ALIASES']);
    const deep = await refused(
      '{ __schema { types { fields { type { fields { type { fields { type { fields { type { fields { name } } } } } } } } } } } }',
    );
    // graphql-js's own validation refuses introspection that cycles through fields and types.
    expect(errorCodes(deep)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
  });
});

describe('page sizes', () => {
  const LISTS: [string, (first: number, ids: { userId: string; postId: string }) => string][] = [
    ['User.followers', (n) => `{ viewer { followers(first: ${n}) { totalCount } } }`],
    ['User.following', (n) => `{ viewer { following(first: ${n}) { totalCount } } }`],
    ['User.knownFollowers', (n) => `{ viewer { knownFollowers(first: ${n}) { totalCount } } }`],
    ['User.mutuals', (n) => `{ viewer { mutuals(first: ${n}) { totalCount } } }`],
    ['User.posts', (n) => `{ viewer { posts(first: ${n}) { pageInfo { hasNextPage } } } }`],
    ['User.timeline', (n) => `{ viewer { timeline(first: ${n}) { pageInfo { hasNextPage } } } }`],
    [
      'Post.comments',
      (n, { postId }) => `{ post(id: "${postId}") { comments(first: ${n}) { pageInfo { hasNextPage } } } }`,
    ],
    ['Post.likedBy', (n, { postId }) => `{ post(id: "${postId}") { likedBy(first: ${n}) { totalCount } } }`],
    ['Post.repostedBy', (n, { postId }) => `{ post(id: "${postId}") { repostedBy(first: ${n}) { totalCount } } }`],
    ['Query.tagTimeline', (n) => `{ tagTimeline(tag: "limits", first: ${n}) { pageInfo { hasNextPage } } }`],
    ['Query.publicTimeline', (n) => `{ publicTimeline(first: ${n}) { pageInfo { hasNextPage } } }`],
    ['Query.suggestedFollows', (n) => `{ suggestedFollows(first: ${n}) { mutualCount } }`],
    ['Query.network', (n, { userId }) => `{ network(userId: "${userId}", first: ${n}) { totalCount } }`],
  ];

  it.each(LISTS)('%s refuses first outside 1-100 with BAD_USER_INPUT and accepts 1 and 100', async (_field, query) => {
    const viewer = await t.gql('{ viewer { id } }', {}, token);
    const post = await t.gql('mutation { createPost(input: { text: "page sizes" }) { post { id } } }', {}, token);
    const ids = { userId: viewer.data!.viewer.id, postId: post.data!.createPost.post.id };
    for (const first of [0, -1, 101]) {
      const result = await t.gql(query(first, ids), {}, token);
      expect(errorCodes(result)).toEqual(['BAD_USER_INPUT']);
      expect(result.errors![0]!.extensions!.field).toBe('first');
    }
    for (const first of [1, 100]) {
      const result = await t.gql(query(first, ids), {}, token);
      expect(result.errors).toBeUndefined();
    }
  });
});

describe('HTTP protections', () => {
  it('refuses a batch of operations (a JSON array) before any store request', async () => {
    const response = await withoutStoreRequests(() =>
      fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify([{ query: '{ viewer { id } }' }, { query: '{ viewer { handle } }' }]),
      }),
    );
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('batching');
  });

  it('refuses a body over 100 KB with 413, whether its length is declared or streamed', async () => {
    const query = `{ viewer { id } } # ${'x'.repeat(101 * 1024)}`;
    const declared = await withoutStoreRequests(() =>
      fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      }),
    );
    expect(declared.status).toBe(413);
    expect(await declared.json()).toEqual({
      errors: [{ message: 'Request body larger than 102400 bytes', extensions: { code: 'BAD_REQUEST' } }],
    });

    const chunk = new TextEncoder().encode('x'.repeat(16 * 1024));
    let sent = 0;
    const streamed = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      duplex: 'half',
      body: new ReadableStream({
        pull(controller) {
          sent += 1;
          if (sent > 20) controller.close();
          else controller.enqueue(chunk);
        },
      }),
    } as RequestInit);
    expect(streamed.status).toBe(413);
  });

  it('keeps CSRF prevention on: a GET or a simple POST without a preflight header is refused', async () => {
    const query = encodeURIComponent('{ viewer { id } }');
    const get = await withoutStoreRequests(() =>
      fetch(`${t.url}/graphql?query=${query}`, { headers: { authorization: `Bearer ${token}` } }),
    );
    expect(get.status).toBe(400);
    expect(await get.text()).toContain('Cross-Site Request Forgery');

    const simplePost = await withoutStoreRequests(() =>
      fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: '{ viewer { id } }' }),
      }),
    );
    expect(simplePost.status).toBe(400);
    expect(await simplePost.text()).toContain('Cross-Site Request Forgery');

    const preflighted = await fetch(`${t.url}/graphql?query=${query}`, {
      headers: { authorization: `Bearer ${token}`, 'apollo-require-preflight': 'true' },
    });
    expect(preflighted.status).toBe(200);
    expect(((await preflighted.json()) as any).data.viewer.id).toMatch(/^usr_/);
  });

  it('answers a malformed persisted-query extension with 400 BAD_REQUEST, logged as no error', async () => {
    const logger = capturingLogger();
    const app = await startTestApp(QUIET, { logger });
    try {
      const query = '{ __typename }';
      const hash = createHash('sha256').update(query).digest('hex');
      const post = async (body: Record<string, unknown>) => {
        const response = await fetch(`${app.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        return { status: response.status, ...((await response.json()) as Omit<GraphQLResponse, 'status'>) };
      };
      const malformed: unknown[] = [
        { version: 1, sha256Hash: '00' },
        { version: 2, sha256Hash: hash },
        { version: '1', sha256Hash: hash },
        { version: 1 },
        { version: 1, sha256Hash: 5 },
        { version: 1, sha256Hash: hash.toUpperCase().replace(/[0-9]/g, 'G') },
        'yes',
        [1],
      ];
      for (const persistedQuery of malformed) {
        for (const body of [{ extensions: { persistedQuery } }, { query, extensions: { persistedQuery } }]) {
          const answer = await post(body);
          expect({ persistedQuery, status: answer.status, codes: errorCodes(answer) }).toEqual({
            persistedQuery,
            status: 400,
            codes: ['BAD_REQUEST'],
          });
        }
      }
      // A well-formed hash of another document is the client's mistake too.
      const mismatch = await post({
        query: '{ viewer { id } }',
        extensions: { persistedQuery: { version: 1, sha256Hash: hash } },
      });
      expect({ status: mismatch.status, codes: errorCodes(mismatch) }).toEqual({ status: 400, codes: ['BAD_REQUEST'] });
      const overGet = await fetch(
        `${app.url}/graphql?extensions=${encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash: '00' } }))}`,
        {
          headers: { 'apollo-require-preflight': 'true' },
        },
      );
      expect(overGet.status).toBe(400);
      expect(errorCodes({ status: 400, ...((await overGet.json()) as object) })).toEqual(['BAD_REQUEST']);
      expect(logger.entries.filter((entry) => entry.level === 'error')).toEqual([]);

      // Well-formed, they work as Apollo's automatic persisted queries do.
      expect(errorCodes(await post({ extensions: { persistedQuery: { version: 1, sha256Hash: hash } } }))).toEqual([
        'PERSISTED_QUERY_NOT_FOUND',
      ]);
      expect((await post({ query, extensions: { persistedQuery: { version: 1, sha256Hash: hash } } })).data).toEqual({
        __typename: 'Query',
      });
      expect((await post({ extensions: { persistedQuery: { version: 1, sha256Hash: hash } } })).data).toEqual({
        __typename: 'Query',
      });
    } finally {
      await app.stop();
    }
  });

  it('has introspection and GraphiQL on outside production', async () => {
    const introspection = await t.gql('{ __schema { queryType { name } } }');
    expect(introspection.data!.__schema.queryType.name).toBe('Query');
    expect((await fetch(`${t.url}/graphiql`)).status).toBe(200);
    // With the schema open anyway, a misspelt name gets graphql-js's suggestion.
    expect((await t.gql('{ viewr { id } }')).errors![0]!.message).toMatch(
      /^Cannot query field "viewr" on type "Query"\. Did you mean "viewer"/,
    );
  });
});

describe('production', () => {
  const PRODUCTION = { ...QUIET, NODE_ENV: 'production', JWT_SECRET: 'a-production-secret-of-at-least-32-chars' };

  it('turns introspection and GraphiQL off, and never shows a stack trace', async () => {
    const production = await startTestApp(PRODUCTION);
    try {
      const introspection = await production.gql('{ __schema { queryType { name } } }');
      expect(errorCodes(introspection)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
      expect((await fetch(`${production.url}/graphiql`)).status).toBe(404);
      expect((await fetch(`${production.url}/graphiql/assets/graphiql.js`)).status).toBe(404);
      expect(await (await fetch(`${production.url}/`)).text()).not.toContain('href="/graphiql"');

      const invalid = await production.gql('{ viewer { nope } }');
      expect(invalid.errors![0]!.extensions).toEqual({ code: 'GRAPHQL_VALIDATION_FAILED' });
      // Nor is the schema told a name at a time: no suggestions for misspelt fields, arguments or input fields.
      const misspelt = await production.gql('{ viewr { id } user(handle: "x") { blockedUser { totalCount } } }');
      expect(misspelt.errors!.map((error) => error.message)).toEqual([
        'Cannot query field "viewr" on type "Query".',
        'Cannot query field "blockedUser" on type "User".',
      ]);
      const misspeltInput = await production.gql('mutation($input: SignUpInput!) { signUp(input: $input) { token } }', {
        input: { handle: 'nobody_here', pasword: 'long enough password' },
      });
      expect(errorCodes(misspeltInput)).toEqual(['BAD_USER_INPUT']);
      expect(misspeltInput.errors![0]!.message).toMatch(/Field "pasword" is not defined by type "SignUpInput"\.$/);

      // With its table gone every store request fails: an internal error, masked, without a stack.
      const client = createDocumentClient({
        endpoint: production.endpoint,
        tableName: tableName(production.tablePrefix),
      });
      await client.send(new DeleteTableCommand({ TableName: tableName(production.tablePrefix) }));
      client.destroy();
      const broken = await production.gql('{ user(handle: "someone") { id } }');
      expect(broken.errors).toEqual([
        {
          message: 'Internal server error',
          locations: [{ line: 1, column: 3 }],
          path: ['user'],
          extensions: { code: 'INTERNAL_SERVER_ERROR' },
        },
      ]);
      expect(JSON.stringify(broken)).not.toMatch(/stack|at .*\.ts/i);
    } finally {
      // The table is gone, so there are no counters left to audit: stop the service alone.
      await production.app.stop();
    }
  });

  it('turns introspection and GraphiQL on when the settings say so', async () => {
    const production = await startTestApp({ ...PRODUCTION, INTROSPECTION: 'true', GRAPHIQL: 'true' });
    try {
      const introspection = await production.gql('{ __schema { queryType { name } } }');
      expect(introspection.data!.__schema.queryType.name).toBe('Query');
      expect((await fetch(`${production.url}/graphiql`)).status).toBe(200);
    } finally {
      await production.stop();
    }
  });
});
