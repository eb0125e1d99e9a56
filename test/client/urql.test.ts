import { Client, cacheExchange, fetchExchange, gql, type ClientOptions } from '@urql/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readExampleOperations } from '../../src/http/graphiql-operations.js';
import { TEST_PASSWORD, startTestApp, uniqueHandle, type TestApp } from '../helpers/app.js';

/** The example operations in docs/operations, as a client would ship them. */
const operations = new Map(readExampleOperations().map((o) => [o.name, gql(o.document)]));
const operation = (name: string) => operations.get(name)!;

let t: TestApp;
/** The HTTP method of every request the clients sent, in order. */
const methods: string[] = [];

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.stop();
});

function recordingFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  methods.push(init?.method ?? 'GET');
  return fetch(input, init);
}

type HeaderMap = Record<string, string>;

/** urql as it comes: queries as GET, mutations as JSON POST. */
const URQL_DEFAULTS = (headers: HeaderMap): Partial<ClientOptions> => ({ fetchOptions: () => ({ headers }) });
/** The two ways past CSRF prevention (docs/design/limits.md): every operation a JSON POST, or GET with the preflight header. */
const SEND_QUERIES_AS_POST = (headers: HeaderMap): Partial<ClientOptions> => ({ preferGetMethod: false, fetchOptions: () => ({ headers }) });
const GET_WITH_PREFLIGHT_HEADER = (headers: HeaderMap): Partial<ClientOptions> => ({
  fetchOptions: () => ({ headers: { 'apollo-require-preflight': 'true', ...headers } }),
});

function urqlClient(configure: (headers: HeaderMap) => Partial<ClientOptions>, token?: string): Client {
  return new Client({
    url: `${t.url}/graphql`,
    exchanges: [cacheExchange, fetchExchange],
    fetch: recordingFetch,
    ...configure(token ? { authorization: `Bearer ${token}` } : {}),
  });
}

async function signUp(client: Client) {
  const handle = uniqueHandle('urql');
  const result = await client.mutation(operation('sign-up'), { input: { handle, displayName: 'Urql', password: TEST_PASSWORD } }).toPromise();
  expect(result.error).toBeUndefined();
  return { id: result.data.signUp.user.id as string, token: result.data.signUp.token as string, handle };
}

describe('urql', () => {
  it('sends queries as GET by default, which CSRF prevention refuses with a message saying what to send', async () => {
    const { token } = await signUp(urqlClient(URQL_DEFAULTS));
    methods.length = 0;
    const result = await urqlClient(URQL_DEFAULTS, token).query(operation('home-timeline'), { first: 5 }).toPromise();
    expect(methods).toEqual(['GET']);
    expect(result.data).toBeUndefined();
    expect(result.error?.graphQLErrors.map((e) => e.extensions.code)).toEqual(['BAD_REQUEST']);
    expect(result.error?.message).toContain('Cross-Site Request Forgery');
    expect(result.error?.message).toContain('apollo-require-preflight');
  });

  it.each([
    ['preferGetMethod: false (every operation a JSON POST)', SEND_QUERIES_AS_POST, 'POST'],
    ['the apollo-require-preflight header (queries stay GET)', GET_WITH_PREFLIGHT_HEADER, 'GET'],
  ])('works with %s', async (_how, configure, queryMethod) => {
    const { id, token, handle } = await signUp(urqlClient(configure));
    const client = urqlClient(configure, token);

    const created = await client.mutation(operation('create-post'), { input: { text: 'sent by urql', tags: ['urql'] } }).toPromise();
    expect(created.error).toBeUndefined();
    const postId = created.data.createPost.post.id as string;

    methods.length = 0;
    const profile = await client.query(operation('author-posts'), { handle, first: 10 }, { requestPolicy: 'network-only' }).toPromise();
    expect(methods).toEqual([queryMethod]);
    expect(profile.error).toBeUndefined();
    expect(profile.data.user).toMatchObject({ id, handle, postCount: 1 });
    expect(profile.data.user.posts.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual([postId]);
  });
});
