import { gql, type ApolloClient } from '@apollo/client';
import { buildSchema } from 'graphql';
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { createApolloClient, likePost, typePolicies } from '../../examples/apollo.js';
import {
  ChangePasswordDocument,
  CreatePostDocument,
  FollowDocument,
  HomeTimelineDocument,
  RefreshTimelineDocument,
  SignUpDocument,
  TimelineUpdatesDocument,
} from '../../examples/generated/graphql.js';
import introspection from '../../examples/generated/possible-types.js';
import { Session } from '../../examples/session.js';
import { loadTypeDefs } from '../../src/graphql/apollo.js';
import { TEST_PASSWORD, startTestApp, uniqueHandle, type TestApp } from '../helpers/app.js';
import { connectionFields, expiringIn, homeTimelineLength, requestRecorder } from '../helpers/clients.js';
import { WORKER_WAIT } from '../helpers/queue.js';

let t: TestApp;
const open: { client: ApolloClient; socket: { dispose(): void | Promise<void> } }[] = [];

beforeAll(async () => {
  t = await startTestApp();
});
afterEach(async () => {
  vi.restoreAllMocks();
  for (const { client, socket } of open.splice(0)) {
    client.stop();
    await socket.dispose();
  }
});
afterAll(async () => {
  await t.stop();
});

/** The example's client with a session of its own, as one browser tab would have. */
function tab(options: { refreshMarginSeconds?: number } = {}) {
  const requests = requestRecorder();
  const session = new Session({ url: `${t.url}/graphql`, fetch: requests.fetch, ...options });
  const apollo = createApolloClient({ url: `${t.url}/graphql`, session, fetch: requests.fetch });
  open.push(apollo);
  return { ...apollo, session, requests };
}

async function signUp(app: ReturnType<typeof tab>, name: string) {
  const handle = uniqueHandle(name);
  const { data } = await app.client.mutate({
    mutation: SignUpDocument,
    variables: { input: { handle, displayName: name, password: TEST_PASSWORD } },
  });
  app.session.signedIn(data!.signUp!);
  return { id: data!.signUp!.user.id, handle };
}

describe('the Apollo Client example', () => {
  it('has a paging policy for every connection, keyed by its arguments that are not paging ones', () => {
    const connections = connectionFields(buildSchema(loadTypeDefs()));
    const policies = Object.fromEntries(
      Object.entries(typePolicies)
        .filter(([, policy]) => policy.fields)
        .map(([type, policy]) => [
          type,
          Object.fromEntries(
            Object.entries(policy.fields!).map(([field, p]) => [
              field,
              (p as { keyArgs: string[] | false }).keyArgs || [],
            ]),
          ),
        ]),
    );
    expect(policies).toEqual(connections);
    expect(introspection.possibleTypes.Node).toEqual(['Comment', 'Notification', 'Post', 'User']);
  });

  it('signs up, pages the home timeline forwards and backwards with fetchMore, and likes a post optimistically', async () => {
    const warnings = vi.spyOn(console, 'warn');
    const reader = tab();
    const author = tab();
    await signUp(reader, 'reader');
    const authorUser = await signUp(author, 'author');
    const followed = await reader.client.mutate({ mutation: FollowDocument, variables: { userId: authorUser.id } });
    expect(followed.data!.follow!.user).toMatchObject({ id: authorUser.id, followerCount: 1, viewerFollows: true });

    const posted: string[] = [];
    const post = async (text: string) => {
      const created = await author.client.mutate({
        mutation: CreatePostDocument,
        variables: { input: { text, tags: ['apollo'] } },
      });
      posted.unshift(created.data!.createPost!.post.id);
    };
    for (let i = 1; i <= 5; i += 1) await post(`post ${i}`);
    await expect.poll(() => homeTimelineLength(t, reader.session.tokens!.token), WORKER_WAIT).toBe(5);

    // The watched first page, then fetchMore: each page a request, merged into one list by relayStylePagination.
    const timeline = reader.client.watchQuery({ query: HomeTimelineDocument, variables: { first: 2 } });
    const watching = timeline.subscribe(() => {});
    const current = () => {
      const result = timeline.getCurrentResult();
      if (result.dataState !== 'complete') throw new Error(`the watched timeline is ${result.dataState}`);
      return result.data.viewer!.timeline!;
    };
    await vi.waitFor(() => expect(current().edges).toHaveLength(2));
    const before = reader.requests.named('HomeTimeline').length;
    // The next cursor comes from the page fetchMore got; the watched list shows the merged pages a moment later.
    let page = current();
    while (page.pageInfo.hasNextPage)
      page = (await timeline.fetchMore({ variables: { after: page.pageInfo.endCursor } })).data!.viewer!.timeline!;
    expect(reader.requests.named('HomeTimeline').length - before).toBe(2);
    await vi.waitFor(() => expect(current().edges.map((edge) => edge.node.id)).toEqual(posted));
    // The same query answers from the cache alone now, with every page.
    const cached = await reader.client.query({
      query: HomeTimelineDocument,
      variables: { first: 2 },
      fetchPolicy: 'cache-only',
    });
    expect(cached.data!.viewer!.timeline!.edges).toHaveLength(5);
    expect(reader.requests.named('HomeTimeline').length - before).toBe(2);

    // Pull-to-refresh: RefreshTimeline's `last`/`before` pages go in front of the list, newest first.
    for (let i = 6; i <= 8; i += 1) await post(`post ${i}`);
    await expect.poll(() => homeTimelineLength(t, reader.session.tokens!.token), WORKER_WAIT).toBe(8);
    let newer = await timeline.fetchMore({
      query: RefreshTimelineDocument,
      variables: { last: 2, before: current().edges[0]!.cursor },
    });
    while (newer.data!.viewer!.timeline!.pageInfo.hasPreviousPage) {
      newer = await timeline.fetchMore({
        query: RefreshTimelineDocument,
        variables: { last: 2, before: newer.data!.viewer!.timeline!.pageInfo.startCursor },
      });
    }
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

    // Every post's author is one normalized User; possibleTypes lets a fragment on Node find it.
    const newest = current().edges[0]!.node;
    expect(newest.author).toMatchObject({ id: authorUser.id, handle: authorUser.handle });
    // DateTime is typed as the string it is (codegen's scalar mapping), not `unknown`.
    expectTypeOf(newest.createdAt).toEqualTypeOf<string>();
    expect(new Date(newest.createdAt).toISOString()).toBe(newest.createdAt);
    const asNode = reader.client.cache.readFragment<{ id: string }>({
      id: reader.client.cache.identify({ __typename: 'Post', id: newest.id }),
      fragment: gql`
        fragment AnyNode on Node {
          id
        }
      `,
    });
    expect(asNode).toEqual({ __typename: 'Post', id: newest.id });

    // The like shows while its request is still held, and stays once the service has answered.
    const release = reader.requests.hold('LikePost');
    const liked = likePost(reader.client, newest);
    await vi.waitFor(() => expect(current().edges[0]!.node).toMatchObject({ viewerHasLiked: true, likeCount: 1 }));
    // Its request is sent but held: no answer (status) yet.
    await vi.waitFor(() =>
      expect(reader.requests.named('LikePost')).toEqual([
        { operationName: 'LikePost', authorization: expect.stringMatching(/^Bearer /) },
      ]),
    );
    release();
    expect((await liked).data!.likePost!.post).toMatchObject({ id: newest.id, viewerHasLiked: true, likeCount: 1 });
    expect(current().edges[0]!.node).toMatchObject({ viewerHasLiked: true, likeCount: 1 });
    expect(
      (await reader.client.query({ query: HomeTimelineDocument, variables: { first: 1 }, fetchPolicy: 'network-only' }))
        .data!.viewer!.timeline!.edges[0]!.node,
    ).toMatchObject({
      id: newest.id,
      viewerHasLiked: true,
      likeCount: 1,
    });

    watching.unsubscribe();
    expect(warnings).not.toHaveBeenCalled();
  });

  it('refreshes once for many requests, before sending with an expired token and after a 401, never with Authorization', async () => {
    const reader = tab();
    await signUp(reader, 'refresher');
    const pages = () =>
      Promise.all(
        [1, 2, 3, 4, 5].map((first) =>
          reader.client.query({ query: HomeTimelineDocument, variables: { first }, fetchPolicy: 'network-only' }),
        ),
      );

    // Expired by the clock: the five wait for one refresh, then go out with its token.
    reader.session.signedIn(await expiringIn(t, reader.session.tokens!, -60));
    const expired = reader.session.tokens!.token;
    for (const page of await pages())
      expect(page.data!.viewer!.timeline).toEqual(expect.objectContaining({ edges: [] }));
    const fresh = reader.session.tokens!.token;
    expect(fresh).not.toBe(expired);
    expect(reader.requests.named('RefreshSession')).toEqual([
      { operationName: 'RefreshSession', authorization: null, status: 200 },
    ]);
    expect(reader.requests.named('HomeTimeline').map((request) => request.authorization)).toEqual(
      Array(5).fill(`Bearer ${fresh}`),
    );

    // Refused by the service: changePassword ends this session's access token but not its refresh token.
    await reader.client.mutate({
      mutation: ChangePasswordDocument,
      variables: { currentPassword: TEST_PASSWORD, newPassword: 'another long passphrase' },
    });
    reader.requests.sent.length = 0;
    for (const page of await pages()) expect(page.data!.viewer!.timeline!.edges).toEqual([]);
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
    await signUp(reader, 'listener');
    const authorUser = await signUp(author, 'speaker');
    await reader.client.mutate({ mutation: FollowDocument, variables: { userId: authorUser.id } });
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
    const live = reader.client.subscribe({ query: TimelineUpdatesDocument }).subscribe({
      next: (result) => result.data && received.push(result.data.timelinePostAdded.node.text),
      error: (error) => failures.push(error),
    });
    const postUntilReceived = (text: string) =>
      vi.waitFor(
        async () => {
          if (!received.includes(text))
            await author.client.mutate({ mutation: CreatePostDocument, variables: { input: { text } } });
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
