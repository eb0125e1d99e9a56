import { Client, cacheExchange, fetchExchange, gql, type ClientOptions, type OperationResult } from '@urql/core';
import { buildSchema, isObjectType } from 'graphql';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ChangePasswordDocument,
  CreatePostDocument,
  FanOutStatusDocument,
  FollowDocument,
  HomeTimelineDocument,
  LikePostDocument,
  RefreshTimelineDocument,
  SignUpDocument,
  TimelineUpdatesDocument,
  type HomeTimelineQuery,
} from '../../examples/generated/graphql.js';
import { Session } from '../../examples/session.js';
import { createUrqlClient, keys, resolvers } from '../../examples/urql.js';
import { loadTypeDefs } from '../../src/graphql/apollo.js';
import { readExampleOperations } from '../../src/http/graphiql-operations.js';
import { TEST_PASSWORD, startTestApp, uniqueHandle, type TestApp } from '../helpers/app.js';
import { connectionFields, expiringIn, homeTimelineLength, requestRecorder } from '../helpers/clients.js';
import { WORKER_WAIT } from '../helpers/queue.js';

/** The example operations in docs/operations, as a client would ship them. */
const operations = new Map(readExampleOperations().map((o) => [o.name, gql(o.document)]));
const operation = (name: string) => operations.get(name)!;

let t: TestApp;
/** The HTTP method of every request the clients sent, in order. */
const methods: string[] = [];
const sockets: { dispose(): void | Promise<void> }[] = [];

beforeAll(async () => {
  t = await startTestApp();
});
afterEach(async () => {
  vi.restoreAllMocks();
  for (const socket of sockets.splice(0)) await socket.dispose();
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
const SEND_QUERIES_AS_POST = (headers: HeaderMap): Partial<ClientOptions> => ({
  preferGetMethod: false,
  fetchOptions: () => ({ headers }),
});
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
  const result = await client
    .mutation(operation('sign-up'), { input: { handle, displayName: 'Urql', password: TEST_PASSWORD } })
    .toPromise();
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

    const created = await client
      .mutation(operation('create-post'), { input: { text: 'sent by urql', tags: ['urql'] } })
      .toPromise();
    expect(created.error).toBeUndefined();
    const postId = created.data.createPost.post.id as string;

    methods.length = 0;
    const profile = await client
      .query(operation('author-posts'), { handle, first: 10 }, { requestPolicy: 'network-only' })
      .toPromise();
    expect(methods).toEqual([queryMethod]);
    expect(profile.error).toBeUndefined();
    expect(profile.data.user).toMatchObject({ id, handle, postCount: 1 });
    expect(profile.data.user.posts.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual([postId]);
  });
});

/** The example's client with a session of its own, as one browser tab would have. */
function tab(options: { refreshMarginSeconds?: number } = {}) {
  const requests = requestRecorder();
  const session = new Session({ url: `${t.url}/graphql`, fetch: requests.fetch, ...options });
  const urql = createUrqlClient({ url: `${t.url}/graphql`, session, fetch: requests.fetch });
  sockets.push(urql.socket);
  return { ...urql, session, requests };
}

async function signUpIn(app: ReturnType<typeof tab>, name: string) {
  const handle = uniqueHandle(name);
  const result = await app.client
    .mutation(SignUpDocument, { input: { handle, displayName: name, password: TEST_PASSWORD } })
    .toPromise();
  expect(result.error).toBeUndefined();
  app.session.signedIn(result.data!.signUp!);
  return { id: result.data!.signUp!.user.id, handle };
}

describe('the urql example', () => {
  it('keys every type without an id, and merges the pages of every connection', () => {
    const schema = buildSchema(loadTypeDefs());
    const roots = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].map(
      (type) => type?.name,
    );
    const withoutId = Object.values(schema.getTypeMap())
      .filter(
        (type) =>
          isObjectType(type) && !type.name.startsWith('__') && !roots.includes(type.name) && !type.getFields().id,
      )
      .map((type) => type.name)
      // graphcache embeds these without being told, and keeps no mutation payload.
      .filter((name) => !/^PageInfo$|(Connection|Edge|Payload)$/.test(name));
    expect(Object.keys(keys).sort()).toEqual(withoutId.sort());
    const connections = connectionFields(schema);
    expect(
      Object.fromEntries(Object.entries(resolvers).map(([type, fields]) => [type, Object.keys(fields ?? {}).sort()])),
    ).toEqual(
      Object.fromEntries(Object.entries(connections).map(([type, fields]) => [type, Object.keys(fields).sort()])),
    );
  });

  it('signs up, pages the home timeline both ways into one list, and likes a post optimistically', async () => {
    const warnings = vi.spyOn(console, 'warn');
    const reader = tab();
    const author = tab();
    await signUpIn(reader, 'reader');
    const authorUser = await signUpIn(author, 'author');
    const followed = await reader.client.mutation(FollowDocument, { userId: authorUser.id }).toPromise();
    expect(followed.data!.follow!.user).toMatchObject({ id: authorUser.id, followerCount: 1, viewerFollows: true });

    const posted: string[] = [];
    const post = async (text: string) => {
      const created = await author.client.mutation(CreatePostDocument, { input: { text, tags: ['urql'] } }).toPromise();
      posted.unshift(created.data!.createPost!.post.id);
    };
    for (let i = 1; i <= 5; i += 1) await post(`post ${i}`);
    await expect.poll(() => homeTimelineLength(t, reader.session.tokens!.token), WORKER_WAIT).toBe(5);
    const fanOut = await author.client.query(FanOutStatusDocument, { id: posted[0]! }).toPromise();
    expect(fanOut.data!.post!.fanOut).toMatchObject({ state: 'DONE', delivered: 1, total: 1 });

    // The first page, watched; each next page is the same query with `after`, and graphcache merges them all.
    let latest: OperationResult<HomeTimelineQuery> | undefined;
    const watching = reader.client.query(HomeTimelineDocument, { first: 2 }).subscribe((result) => (latest = result));
    const current = () => latest!.data!.viewer!.timeline!;
    await vi.waitFor(() => expect(current().edges).toHaveLength(2));
    let page = current();
    while (page.pageInfo.hasNextPage)
      page = (await reader.client.query(HomeTimelineDocument, { first: 2, after: page.pageInfo.endCursor }).toPromise())
        .data!.viewer!.timeline!;
    expect(reader.requests.named('HomeTimeline')).toHaveLength(3);
    await vi.waitFor(() => expect(current().edges.map((edge) => edge.node.id)).toEqual(posted));

    // Pull-to-refresh: the `last`/`before` pages go in front ('outwards'), newest first.
    for (let i = 6; i <= 8; i += 1) await post(`post ${i}`);
    await expect.poll(() => homeTimelineLength(t, reader.session.tokens!.token), WORKER_WAIT).toBe(8);
    const newerThan = async (before: string) =>
      (await reader.client.query(RefreshTimelineDocument, { last: 2, before }).toPromise()).data!.viewer!.timeline!
        .pageInfo;
    let newer = await newerThan(current().edges[0]!.cursor);
    while (newer.hasPreviousPage) newer = await newerThan(newer.startCursor!);
    expect(reader.requests.named('RefreshTimeline')).toHaveLength(2);
    await vi.waitFor(() => expect(current().edges.map((edge) => edge.node.id)).toEqual(posted));
    expect(current().edges.map((edge) => edge.node.text)).toEqual([
      'post 8',
      'post 7',
      'post 6',
      'post 5',
      'post 4',
      'post 3',
      'post 2',
      'post 1',
    ]);
    expect(reader.requests.named('HomeTimeline')).toHaveLength(3);

    // The like shows while its request is held, and stays once the service has answered.
    const newest = current().edges[0]!.node;
    const release = reader.requests.hold('LikePost');
    const liked = reader.client.mutation(LikePostDocument, { postId: newest.id }).toPromise();
    await vi.waitFor(() =>
      expect(current().edges[0]!.node).toMatchObject({ id: newest.id, viewerHasLiked: true, likeCount: 1 }),
    );
    await vi.waitFor(() =>
      expect(reader.requests.named('LikePost')).toEqual([
        { operationName: 'LikePost', authorization: expect.stringMatching(/^Bearer /) },
      ]),
    );
    release();
    expect((await liked).data!.likePost!.post).toMatchObject({ id: newest.id, viewerHasLiked: true, likeCount: 1 });
    expect(current().edges[0]!.node).toMatchObject({ viewerHasLiked: true, likeCount: 1 });

    watching.unsubscribe();
    expect(warnings).not.toHaveBeenCalled();
  });

  it('refreshes once for many requests, before sending with an expired token and after a 401, never with Authorization', async () => {
    const reader = tab();
    await signUpIn(reader, 'refresher');
    const pages = () =>
      Promise.all(
        [1, 2, 3, 4, 5].map((first) =>
          reader.client.query(HomeTimelineDocument, { first }, { requestPolicy: 'network-only' }).toPromise(),
        ),
      );

    // Expired by the clock: the auth exchange holds the five back for one refresh.
    reader.session.signedIn(await expiringIn(t, reader.session.tokens!, -60));
    const expired = reader.session.tokens!.token;
    for (const result of await pages()) expect(result.data!.viewer!.timeline!.edges).toEqual([]);
    const fresh = reader.session.tokens!.token;
    expect(fresh).not.toBe(expired);
    expect(reader.requests.named('RefreshSession')).toEqual([
      { operationName: 'RefreshSession', authorization: null, status: 200 },
    ]);
    expect(reader.requests.named('HomeTimeline').map((request) => request.authorization)).toEqual(
      Array(5).fill(`Bearer ${fresh}`),
    );

    // Refused by the service: changePassword ends this session's access token but not its refresh token.
    const changed = await reader.client
      .mutation(ChangePasswordDocument, { currentPassword: TEST_PASSWORD, newPassword: 'another long passphrase' })
      .toPromise();
    expect(changed.data).toEqual({ changePassword: true });
    reader.requests.sent.length = 0;
    for (const result of await pages()) expect(result.data!.viewer!.timeline!.edges).toEqual([]);
    const after401 = reader.session.tokens!.token;
    expect(reader.requests.named('RefreshSession')).toEqual([
      { operationName: 'RefreshSession', authorization: null, status: 200 },
    ]);
    const timelines = reader.requests.named('HomeTimeline');
    expect(timelines.filter((request) => request.status === 401).map((request) => request.authorization)).toEqual(
      Array(5).fill(`Bearer ${fresh}`),
    );
    expect(timelines.filter((request) => request.status === 200).map((request) => request.authorization)).toEqual(
      Array(5).fill(`Bearer ${after401}`),
    );
  });

  it('keeps a subscription over graphql-ws through the close of its expired token and the refresh', async () => {
    // No margin: the socket signs in with the short-lived token, and the service closes it when it expires.
    const reader = tab({ refreshMarginSeconds: 0 });
    const author = tab();
    await signUpIn(reader, 'listener');
    const authorUser = await signUpIn(author, 'speaker');
    await reader.client.mutation(FollowDocument, { userId: authorUser.id }).toPromise();
    reader.session.signedIn(await expiringIn(t, reader.session.tokens!, 8));
    const shortLived = reader.session.tokens!.token;

    const closes: { code: number; reason: string }[] = [];
    let connected = 0;
    reader.socket.on('closed', (event) =>
      closes.push({ code: (event as CloseEvent).code, reason: (event as CloseEvent).reason }),
    );
    reader.socket.on('connected', () => (connected += 1));
    const received: string[] = [];
    const failures: unknown[] = [];
    const live = reader.client.subscription(TimelineUpdatesDocument, {}).subscribe((result) => {
      if (result.error) failures.push(result.error);
      if (result.data) received.push(result.data.timelinePostAdded.node.text);
    });
    const postUntilReceived = (text: string) =>
      vi.waitFor(
        async () => {
          if (!received.includes(text))
            await author.client.mutation(CreatePostDocument, { input: { text } }).toPromise();
          expect(received).toContain(text);
        },
        { timeout: 20_000, interval: 1_000 },
      );

    await postUntilReceived('before the refresh');
    await vi.waitFor(() => expect(connected).toBe(2), { timeout: 30_000, interval: 200 });
    expect(closes[0]).toEqual({ code: 4403, reason: 'Forbidden: the token has expired' });
    expect(reader.session.tokens!.token).not.toBe(shortLived);
    expect(reader.requests.named('RefreshSession')).toEqual([
      { operationName: 'RefreshSession', authorization: null, status: 200 },
    ]);
    await postUntilReceived('after the refresh');
    expect(failures).toEqual([]);
    live.unsubscribe();
  });
});
