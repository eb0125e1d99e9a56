import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Tokens } from '../../src/auth/tokens.js';
import { MAX_BODY_BYTES } from '../../src/http/server.js';
import {
  TEST_PASSWORD,
  type GraphQLResponse,
  type TestApp,
  capturingLogger,
  errorCodes,
  startTestApp,
} from '../helpers/app.js';
import { type LiveClient, connectLive } from '../helpers/live.js';
import { createPost, follow } from '../helpers/posts.js';
import { waitForQueueToDrain } from '../helpers/queue.js';
import { createUseCases } from '../../src/usecases/use-cases.js';
import { type RedisServer, startRedis } from '../helpers/redis.js';
import { killWorkerProcesses, startApiProcess, startWorkerProcess } from '../helpers/worker-process.js';

/**
 * Live updates through the public API with a real graphql-ws client: `timelinePostAdded` over
 * WebSocket, in one process (the default in-process events) and across processes (two API
 * instances and a worker of their own over one DynamoDB Local and one redis-server).
 */

const JWT_SECRET = randomBytes(32).toString('hex');
const TIMELINE_POSTS =
  'subscription { timelinePostAdded { cursor node { id text author { handle } likeCount viewerHasLiked } } }';

const clients: LiveClient[] = [];
function connect(url: string, token: string | null, options?: Parameters<typeof connectLive>[2]): LiveClient {
  const client = connectLive(url, token, options);
  clients.push(client);
  return client;
}

afterAll(async () => {
  await Promise.all(clients.map((client) => client.dispose()));
});

async function gqlAt<T = Record<string, any>>(
  url: string,
  query: string,
  variables: Record<string, unknown>,
  token?: string,
): Promise<GraphQLResponse<T>> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, ...((await response.json()) as object) };
}

const postIds = (subscription: { data: Record<string, any>[] }): string[] =>
  subscription.data.map((data) => data.timelinePostAdded.node.id);

describe('one instance, in-process events', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({
      JWT_SECRET,
      SUBSCRIPTIONS_PER_CONNECTION: '2',
      SUBSCRIPTION_CONNECTIONS_PER_ACCOUNT: '2',
    });
  });
  afterAll(async () => {
    await t.stop();
  });

  it("pushes a followed author's post, hydrated like a timeline page, and the viewer's own", async () => {
    const ada = await t.signUp();
    const bob = await t.signUp();
    await follow(t, bob.token, ada.id);
    const live = connect(t.url, bob.token);
    const posts = live.subscribe(TIMELINE_POSTS);
    // graphql-ws does not say when a subscription is listening: post until one arrives.
    const sent: string[] = [];
    await vi.waitFor(
      async () => {
        if (postIds(posts).length === 0) sent.push(await createPost(t, ada.token, `hello ${sent.length}`));
        expect(postIds(posts).length).toBeGreaterThan(0);
      },
      { timeout: 20_000, interval: 500 },
    );
    const event = posts.data[0]!.timelinePostAdded;
    expect(sent).toContain(event.node.id);
    expect(event.node).toMatchObject({ author: { handle: ada.handle }, likeCount: 0, viewerHasLiked: false });
    // The edge's cursor is the post's cursor in User.timeline.
    const page = await t.gql(
      'query($id: ID!) { user(id: $id) { timeline(first: 100) { edges { cursor node { id } } } } }',
      { id: bob.id },
      bob.token,
    );
    expect(page.data!.user.timeline.edges).toContainEqual({ cursor: event.cursor, node: { id: event.node.id } });

    const own = await createPost(t, bob.token, 'my own');
    await vi.waitFor(() => expect(postIds(posts)).toContain(own), { timeout: 10_000 });
    expect(live.closes).toEqual([]);
  });

  it.each([
    ['no token', { connectionParams: {} }],
    ['a malformed authorization', { connectionParams: { authorization: 'Token abc' } }],
    ['a token that is not one', { connectionParams: { authorization: 'Bearer not.a.token' } }],
    // String() of it throws "Cannot convert object to primitive value".
    ['an authorization object whose toString is no function', { connectionParams: { authorization: { toString: 1 } } }],
    ['an authorization that is a list', { connectionParams: { authorization: ['Bearer', 'not.a.token'] } }],
  ])('closes a connection with %s with 4403 before any subscription', async (_name, options) => {
    const live = connect(t.url, null, options);
    await vi.waitFor(() => expect(live.closes).toHaveLength(1), { timeout: 10_000 });
    expect(live.closes[0]!.code).toBe(4403);
    expect(live.closes[0]!.reason).toMatch(/^Forbidden: /);
    expect(live.acknowledged).toBe(0);
  });

  it('closes a connection that sends a frame over the payload limit with 1009, logging one line at warn', async () => {
    const logger = capturingLogger();
    const app = await startTestApp({ JWT_SECRET }, { logger });
    const consoleError = vi.spyOn(console, 'error');
    try {
      // Before connection_init: nothing of the connection is known yet.
      const socket = new WebSocket(`${app.url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
      await once(socket, 'open');
      socket.send('x'.repeat(MAX_BODY_BYTES + 1));
      const [code] = await once(socket, 'close');
      expect(code).toBe(1009);
      expect(consoleError).not.toHaveBeenCalled();
      const logged = logger.entries.filter((entry) => entry.fields.component === 'subscriptions');
      expect(logged).toEqual([
        expect.objectContaining({
          level: 'warn',
          fields: expect.objectContaining({ reason: 'Max payload size exceeded' }),
        }),
      ]);
      expect(JSON.stringify(logged[0]!.fields)).not.toContain('\\n');
    } finally {
      consoleError.mockRestore();
      await app.stop();
    }
  });

  it('pushes a notification group as it changes, grouped like User.notifications, and nothing of a muted account', async () => {
    const [ada, bob, cy, muted] = await Promise.all([t.signUp(), t.signUp(), t.signUp(), t.signUp()]);
    await t.gql('mutation($id: ID!) { mute(userId: $id) { user { id } } }', { id: muted.id }, ada.token);
    const postId = await createPost(t, ada.token, 'like me');
    const live = connect(t.url, ada.token);
    const groups = live.subscribe(
      'subscription { notificationReceived { id kind actorCount post { id } actors(first: 5) { handle } } }',
    );
    const like = (token: string) =>
      t.gql('mutation($id: ID!) { likePost(postId: $id) { post { id } } }', { id: postId }, token);
    // graphql-ws does not say when a subscription is listening: like (and unlike) until an event arrives.
    await vi.waitFor(
      async () => {
        if (groups.data.length === 0) {
          await t.gql('mutation($id: ID!) { unlikePost(postId: $id) { post { id } } }', { id: postId }, bob.token);
          await like(bob.token);
        }
        expect(groups.data.length).toBeGreaterThan(0);
      },
      { timeout: 20_000, interval: 1_000 },
    );
    await like(muted.token);
    await like(cy.token);
    await vi.waitFor(() => expect(groups.data.at(-1)!.notificationReceived.actorCount).toBe(2), { timeout: 20_000 });
    const last = groups.data.at(-1)!.notificationReceived;
    expect(last).toMatchObject({
      kind: 'LIKE',
      post: { id: postId },
      actors: [{ handle: cy.handle }, { handle: bob.handle }],
    });
    // The same group as the list shows it, and no event ever carried the muted account.
    const page = await t.gql(
      'query($id: ID!) { user(id: $id) { notifications(first: 5) { edges { node { id actorCount } } } } }',
      { id: ada.id },
      ada.token,
    );
    expect(page.data!.user.notifications.edges[0].node).toEqual({ id: last.id, actorCount: 2 });
    expect(
      groups.data.flatMap((data) => data.notificationReceived.actors.map((a: { handle: string }) => a.handle)),
    ).not.toContain(muted.handle);
  });

  it('sends no notification group that a page would leave out: a mention under a post of an account the viewer blocks', async () => {
    const [viewer, blocked, commenter, late, other] = await Promise.all([
      t.signUp(),
      t.signUp(),
      t.signUp(),
      t.signUp(),
      t.signUp(),
    ]);
    const [theirs, open] = [
      await createPost(t, blocked.token, 'their post'),
      await createPost(t, other.token, 'an open post'),
    ];
    const live = connect(t.url, viewer.token);
    const groups = live.subscribe(
      'subscription { notificationReceived { id kind post { id text } actors(first: 5) { handle } } }',
    );
    const mention = (postId: string, by = commenter) =>
      t.gql(
        'mutation($id: ID!, $text: String!) { addComment(postId: $id, text: $text) { comment { id } } }',
        { id: postId, text: `hey @${viewer.handle}` },
        by.token,
      );
    await vi.waitFor(
      async () => {
        if (groups.data.length === 0) await mention(theirs);
        expect(groups.data.length).toBeGreaterThan(0);
      },
      { timeout: 20_000, interval: 1_000 },
    );
    const before = groups.data.length;
    const group = (await t.app.stores.notifications.older(viewer.id, 1, null)).groups[0]!;
    expect(group.postId).toBe(theirs);
    await t.gql('mutation { markNotificationsRead { id } }', {}, viewer.token);
    await t.gql('mutation($id: ID!) { block(userId: $id) { user { id } } }', { id: blocked.id }, viewer.token);

    // A new mention under the blocked account's post is not delivered, nor counted; the group from before the block is
    // not sent again either (published here as its next change would be); a mention under an open post is.
    await mention(theirs, late);
    createUseCases(t.app.stores, t.app.config, capturingLogger()).live.notified(viewer.id, { ...group, actorCount: 2 });
    await mention(open);
    await vi.waitFor(() => expect(groups.data.length).toBe(before + 1), { timeout: 20_000 });
    await waitForQueueToDrain(t);
    expect(groups.data.slice(before).map((data) => data.notificationReceived.post)).toEqual([
      { id: open, text: 'an open post' },
    ]);
    const page = await t.gql(
      'query($id: ID!) { user(id: $id) { notifications(first: 10) { edges { node { post { id } } } } } }',
      { id: viewer.id },
      viewer.token,
    );
    expect(page.data!.user.notifications.edges.map((edge: any) => edge.node.post.id)).toEqual([open]);
    expect((await t.gql('{ viewer { unreadNotificationCount } }', {}, viewer.token)).data!.viewer).toEqual({
      unreadNotificationCount: 1,
    });
  });

  it('upgrades only /graphql, and only for the graphql-ws protocol', async () => {
    const elsewhere = new WebSocket(`${t.url.replace(/^http/, 'ws')}/healthz`, 'graphql-transport-ws');
    const refused = await new Promise<string>((resolve) => elsewhere.once('error', (error) => resolve(error.message)));
    expect(refused).toContain('404');
    // The older subscriptions-transport-ws protocol: the server agrees to no subprotocol, and the client gives up.
    const otherProtocol = new WebSocket(`${t.url.replace(/^http/, 'ws')}/graphql`, 'graphql-ws');
    otherProtocol.on('error', () => {});
    const outcome = await new Promise<string>((resolve) => {
      otherProtocol.once('open', () => resolve('open'));
      otherProtocol.once('close', () => resolve('closed'));
    });
    expect(outcome).toBe('closed');
  });

  it('refuses the token of an account signed out everywhere (token generation) and of no account', async () => {
    const user = await t.signUp();
    expect((await t.gql('mutation { signOut(everywhere: true) }', {}, user.token)).data).toEqual({ signOut: true });
    const signedOut = connect(t.url, user.token);
    await vi.waitFor(() => expect(signedOut.closes).toHaveLength(1), { timeout: 10_000 });
    expect(signedOut.closes[0]).toMatchObject({ code: 4403, reason: expect.stringContaining('signed out') });

    const noAccount = connect(t.url, await new Tokens(JWT_SECRET, 60).issue('usr_00000000000000000000000000'));
    await vi.waitFor(() => expect(noAccount.closes).toHaveLength(1), { timeout: 10_000 });
    expect(noAccount.closes[0]).toMatchObject({ code: 4403, reason: expect.stringContaining('does not exist') });
  });

  it('ends the subscriptions of an account signed out everywhere at their next event', async () => {
    const ada = await t.signUp();
    const bob = await t.signUp();
    await follow(t, bob.token, ada.id);
    const live = connect(t.url, bob.token);
    const posts = live.subscribe(TIMELINE_POSTS);
    await vi.waitFor(
      async () => {
        if (postIds(posts).length === 0) await createPost(t, ada.token, 'while signed in');
        expect(postIds(posts).length).toBeGreaterThan(0);
      },
      { timeout: 20_000, interval: 500 },
    );
    expect((await t.gql('mutation { signOut(everywhere: true) }', {}, bob.token)).data).toEqual({ signOut: true });
    const after = await createPost(t, ada.token, 'after signing out');
    await vi.waitFor(() => expect(posts.ended).toBe(true), { timeout: 10_000 });
    expect(posts.errors.map((error) => error.extensions?.code)).toEqual(['UNAUTHENTICATED']);
    expect(postIds(posts)).not.toContain(after);
  });

  it('closes the connection with 4403 when its token expires', async () => {
    const user = await t.signUp();
    // Long enough to be accepted on a busy machine, short enough to expire while the test waits.
    const shortLived = await new Tokens(JWT_SECRET, 4).issue(user.id);
    const live = connect(t.url, shortLived);
    const posts = live.subscribe(TIMELINE_POSTS);
    await vi.waitFor(() => expect(live.acknowledged).toBe(1), { timeout: 10_000 });
    await vi.waitFor(() => expect(live.closes).toHaveLength(1), { timeout: 10_000 });
    expect(live.closes[0]).toEqual({ code: 4403, reason: 'Forbidden: the token has expired' });
    expect(posts.ended).toBe(true);
  });

  it('a graphql-ws client that retries reconnects after the expiry close with its refreshed token, and its subscription goes on', async () => {
    const [user, author] = await Promise.all([t.signUp(), t.signUp()]);
    await follow(t, user.token, author.id);
    let token = await new Tokens(JWT_SECRET, 4).issue(user.id);
    const closes: number[] = [];
    let acknowledged = 0;
    // As an app would configure it: retries on (graphql-ws gives up at once on 4401, and retries 4403), the token read at each connect.
    const client = createClient({
      url: `${t.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: () => ({ authorization: `Bearer ${token}` }),
      retryAttempts: 3,
      retryWait: () => new Promise((resolve) => setTimeout(resolve, 100)),
      on: { connected: () => (acknowledged += 1), closed: (event) => closes.push((event as { code: number }).code) },
    });
    const received: string[] = [];
    const stop = client.subscribe<{ timelinePostAdded: { node: { id: string } } }>(
      { query: TIMELINE_POSTS },
      {
        next: (result) => result.data && received.push(result.data.timelinePostAdded.node.id),
        error: () => {},
        complete: () => {},
      },
    );
    try {
      await vi.waitFor(() => expect(acknowledged).toBe(1), { timeout: 10_000 });
      token = user.token;
      await vi.waitFor(() => expect(acknowledged).toBe(2), { timeout: 15_000 });
      expect(closes[0]).toBe(4403);
      const postId = await createPost(t, author.token, 'after the refresh');
      await vi.waitFor(() => expect(received).toEqual([postId]), { timeout: 15_000 });
    } finally {
      stop();
      await client.dispose();
    }
  });

  it('refuses subscriptions past the query limits, as over HTTP', async () => {
    const user = await t.signUp();
    const live = connect(t.url, user.token);
    const refused = async (query: string, variables?: Record<string, unknown>) => {
      const subscription = live.subscribe(query, variables);
      await vi.waitFor(() => expect(subscription.ended).toBe(true), { timeout: 10_000 });
      return subscription.errors.map((error) => error.extensions?.code);
    };
    const deep =
      'subscription { timelinePostAdded { node { author { followers { edges { node { followers { edges { node { followers { edges { node { id } } } } } } } } } } } } }';
    expect(await refused(deep)).toEqual(['QUERY_TOO_DEEP']);
    const costly =
      'subscription { timelinePostAdded { node { comments(first: 100) { edges { node { author { followers(first: 100) { edges { node { id handle } } } } } } } } } }';
    expect(await refused(costly)).toEqual(['QUERY_TOO_EXPENSIVE']);
    const aliases = `subscription { timelinePostAdded { ${Array.from({ length: 16 }, (_, i) => `a${i}: cursor`).join(' ')} } }`;
    expect(await refused(aliases)).toEqual(['TOO_MANY_ALIASES']);
    const tokens = `subscription { timelinePostAdded { ${'cursor '.repeat(2100)} } }`;
    expect(await refused(tokens)).toEqual(['TOO_MANY_TOKENS']);
    expect(await refused('subscription { timelinePostAdded { nope } }')).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    // Variables that do not coerce are the client's mistake, as over HTTP (not an internal error).
    const actors = 'subscription($n: Int) { notificationReceived { actors(first: $n) { id } } }';
    expect(await refused(actors, { n: 'abc' })).toEqual(['BAD_USER_INPUT']);
    // Queries and mutations go over HTTP, where the account check and read consistency apply; subscriptions over WebSocket.
    expect(await refused('{ viewer { id } }')).toEqual(['BAD_REQUEST']);
    expect(live.closes).toEqual([]);
    const overHttp = await t.gql(TIMELINE_POSTS, {}, user.token);
    expect(overHttp.status).toBe(400);
    expect(errorCodes(overHttp)).toEqual(['BAD_REQUEST']);
  });

  it('bounds subscriptions per connection and connections per account', async () => {
    const user = await t.signUp();
    const live = connect(t.url, user.token);
    const held = [live.subscribe(TIMELINE_POSTS), live.subscribe(TIMELINE_POSTS)];
    const third = live.subscribe(TIMELINE_POSTS);
    await vi.waitFor(() => expect(third.ended).toBe(true), { timeout: 10_000 });
    expect(third.errors.map((error) => error.extensions?.code)).toEqual(['TOO_MANY_SUBSCRIPTIONS']);
    expect(held.map((subscription) => subscription.ended)).toEqual([false, false]);
    // Ending one frees its place once it has started (one ended while starting counts until its start settles):
    // graphql-ws does not say when a subscription is listening, so post until both hear the viewer's own post.
    await vi.waitFor(
      async () => {
        if (held.some((subscription) => postIds(subscription).length === 0))
          await createPost(t, user.token, 'listening?');
        expect(held.map((subscription) => postIds(subscription).length > 0)).toEqual([true, true]);
      },
      { timeout: 20_000, interval: 500 },
    );
    held[0]!.stop();
    const again = live.subscribe(TIMELINE_POSTS);

    const second = connect(t.url, user.token);
    await vi.waitFor(() => expect(second.acknowledged).toBe(1), { timeout: 10_000 });
    const third_ = connect(t.url, user.token);
    await vi.waitFor(() => expect(third_.closes).toHaveLength(1), { timeout: 10_000 });
    expect(third_.closes[0]).toMatchObject({ code: 4403, reason: expect.stringContaining('connections per account') });
    expect(again.ended).toBe(false);
    // A closed connection gives its place back.
    await second.dispose();
    const fourth = connect(t.url, user.token);
    await vi.waitFor(() => expect(fourth.acknowledged).toBe(1), { timeout: 10_000 });
  });

  it('pays for a connection’s account checks from its account’s bucket, and refuses one it cannot pay for', async () => {
    const limited = await startTestApp({
      JWT_SECRET,
      TABLE_PREFIX: t.tablePrefix,
      WORKER_ENABLED: 'false',
      SUBSCRIPTION_CONNECTIONS_PER_ACCOUNT: '2',
      RATE_LIMIT_POINTS: '40',
      RATE_LIMIT_POINTS_PER_SECOND: '1',
      MAX_QUERY_COST: '40',
    });
    try {
      const [full, spent] = [await t.signUp(), await t.signUp()];
      // Two checks of 20 points empty the bucket: none is left to check the two places held, so nothing is read.
      const [a, b] = [connect(limited.url, full.token), connect(limited.url, full.token)];
      await vi.waitFor(() => expect([a.acknowledged, b.acknowledged]).toEqual([1, 1]), { timeout: 10_000 });
      const third = connect(limited.url, full.token);
      await vi.waitFor(() => expect(third.closes).toHaveLength(1), { timeout: 10_000 });
      expect(third.closes[0]).toMatchObject({ code: 4403, reason: expect.stringContaining('no points left') });
      // With a place free, a connection's own check is refused as a request would be.
      const first = connect(limited.url, spent.token);
      await vi.waitFor(() => expect(first.acknowledged).toBe(1), { timeout: 10_000 });
      expect((await limited.gql('{ __typename }', {}, spent.token)).errors).toBeUndefined();
      const second = connect(limited.url, spent.token);
      await vi.waitFor(() => expect(second.closes).toHaveLength(1), { timeout: 10_000 });
      expect(second.closes[0]).toMatchObject({ code: 4403, reason: expect.stringContaining('rate limited') });
    } finally {
      await limited.app.stop();
    }
  });

  it('closes a connection whose token was signed out when it subscribes, or when its account needs the place', async () => {
    const user = await t.signUp();
    const [a, b] = [connect(t.url, user.token), connect(t.url, user.token)];
    await vi.waitFor(() => expect([a.acknowledged, b.acknowledged]).toEqual([1, 1]), { timeout: 10_000 });
    expect((await t.gql('mutation { signOut(everywhere: true) }', {}, user.token)).data).toEqual({ signOut: true });

    // A subscription on a signed-out connection: refused, and the connection closed.
    const refused = a.subscribe(TIMELINE_POSTS);
    await vi.waitFor(() => expect(a.closes).toHaveLength(1), { timeout: 10_000 });
    expect(a.closes[0]).toMatchObject({ code: 4403, reason: expect.stringContaining('signed out') });
    expect(refused.data).toEqual([]);

    // Signed in again, the account gets its places back from the signed-out connection that holds one.
    const signedIn = await t.gql('mutation($input: SignInInput!) { signIn(input: $input) { token } }', {
      input: { handle: user.handle, password: TEST_PASSWORD },
    });
    const token = signedIn.data!.signIn.token as string;
    const [c, d] = [connect(t.url, token), connect(t.url, token)];
    await vi.waitFor(() => expect([c.acknowledged, d.acknowledged]).toEqual([1, 1]), { timeout: 10_000 });
    await vi.waitFor(() => expect(b.closes).toHaveLength(1), { timeout: 10_000 });
    expect(b.closes[0]).toMatchObject({ code: 4403, reason: expect.stringContaining('signed out') });
    // Connections that are still signed in keep theirs.
    const e = connect(t.url, token);
    await vi.waitFor(() => expect(e.closes).toHaveLength(1), { timeout: 10_000 });
    expect(e.closes[0]).toMatchObject({ code: 4403, reason: expect.stringContaining('connections per account') });
    expect([c.closes, d.closes]).toEqual([[], []]);
  });

  it('lets only the author read a post’s fan-out, DONE once delivered', async () => {
    const ada = await t.signUp();
    const bob = await t.signUp();
    await follow(t, bob.token, ada.id);
    const postId = await createPost(t, ada.token, 'how far?');
    const status = (token?: string) =>
      t.gql('query($id: ID!) { post(id: $id) { id fanOut { state delivered total } } }', { id: postId }, token);
    await vi.waitFor(
      async () =>
        expect((await status(ada.token)).data!.post.fanOut).toEqual({ state: 'DONE', delivered: 1, total: 1 }),
      { timeout: 10_000 },
    );
    const other = await status(bob.token);
    expect(other.data!.post).toEqual({ id: postId, fanOut: null });
    expect(errorCodes(other)).toEqual(['FORBIDDEN']);
    expect(errorCodes(await status())).toEqual(['UNAUTHENTICATED']);
  });

  it('leaves no fan-out record behind a deleted post, even when a late fan-out step comes after the cleanup', async () => {
    const author = await t.signUp();
    const postId = await createPost(t, author.token, 'gone soon');
    const progress = t.app.stores.fanOutProgress;
    await vi.waitFor(
      async () => expect(await progress.getMany([postId])).toEqual([{ state: 'DONE', delivered: 0, total: 0 }]),
      { timeout: 10_000 },
    );
    expect(
      (await t.gql('mutation($id: ID!) { deletePost(id: $id) { deletedPostId } }', { id: postId }, author.token))
        .errors,
    ).toBeUndefined();
    await vi.waitFor(async () => expect(await progress.getMany([postId])).toEqual([null]), { timeout: 10_000 });
    await progress.advance(postId, null, 'page-1', 3);
    expect(await progress.getMany([postId])).toEqual([null]);
  });

  it('pages the home timeline backwards from a cursor: what is newer, nearest first in pages, newest first in each', async () => {
    const ada = await t.signUp();
    const bob = await t.signUp();
    await follow(t, bob.token, ada.id);
    const posts: string[] = [];
    for (let i = 0; i < 5; i++) posts.push(await createPost(t, ada.token, `post ${i}`));
    const home = (args: string) =>
      t.gql(
        `query($id: ID!) { user(id: $id) { timeline(${args}) { edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`,
        { id: bob.id },
        bob.token,
      );
    await vi.waitFor(async () => expect((await home('first: 10')).data!.user.timeline.edges).toHaveLength(5), {
      timeout: 10_000,
    });
    const edges = (await home('first: 10')).data!.user.timeline.edges as { cursor: string; node: { id: string } }[];
    expect(edges.map((edge) => edge.node.id)).toEqual([...posts].reverse());

    // The client has posts 0 and 1; it catches up two at a time.
    const newest = edges.find((edge) => edge.node.id === posts[1])!.cursor;
    const first = (await home(`last: 2, before: "${newest}"`)).data!.user.timeline;
    expect(first.edges.map((edge: { node: { id: string } }) => edge.node.id)).toEqual([posts[3], posts[2]]);
    expect(first.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
    const second = (await home(`last: 2, before: "${first.pageInfo.startCursor}"`)).data!.user.timeline;
    expect(second.edges.map((edge: { node: { id: string } }) => edge.node.id)).toEqual([posts[4]]);
    expect(second.pageInfo.hasPreviousPage).toBe(false);
    const none = (await home(`last: 2, before: "${second.pageInfo.startCursor}"`)).data!.user.timeline;
    expect(none).toEqual({
      edges: [],
      pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
    });

    const bad = async (args: string) => {
      const result = await home(args);
      return result.errors?.map((error) => [error.extensions?.code, error.extensions?.field]);
    };
    expect(await bad('last: 2')).toEqual([['BAD_USER_INPUT', 'before']]);
    expect(await bad(`first: 2, before: "${newest}"`)).toEqual([['BAD_USER_INPUT', 'first']]);
    expect(await bad(`last: 101, before: "${newest}"`)).toEqual([['BAD_USER_INPUT', 'last']]);
    expect(await bad('last: 2, before: "nope!"')).toEqual([['BAD_USER_INPUT', 'before']]);
    // `last` sizes the cost of what is under it, as `first` does.
    const costly = await t.gql(
      'query($id: ID!, $c: String) { user(id: $id) { timeline(last: 100, before: $c) { edges { node { comments(first: 100) { edges { node { id } } } } } } } }',
      { id: bob.id, c: newest },
      bob.token,
    );
    expect(errorCodes(costly)).toEqual(['QUERY_TOO_EXPENSIVE']);
  });
});

describe('several instances: two API processes and a worker over one DynamoDB Local and one redis-server', () => {
  let redis: RedisServer;
  let probe: Redis;
  let a: TestApp;
  let b: Awaited<ReturnType<typeof startApiProcess>>;
  let worker: ReturnType<typeof startWorkerProcess> | undefined;
  // Authors with more than 2 followers are not fanned out (outbox authors).
  const shared = (): Record<string, string> => ({
    REDIS_URL: redis.url,
    JWT_SECRET,
    WORKER_ENABLED: 'false',
    FANOUT_MAX_FOLLOWERS: '2',
    OUTBOX_AUTHORS_TTL_MS: '0',
  });

  beforeAll(async () => {
    redis = await startRedis();
    probe = new Redis(redis.url);
    a = await startTestApp(shared());
    b = await startApiProcess(a, { ...shared(), LOG_LEVEL: 'info' });
  });
  afterAll(async () => {
    killWorkerProcesses();
    probe?.disconnect();
    await a?.stop();
    await redis?.stop();
  });

  /** Waits until some instance listens on the channel: graphql-ws does not say when a subscription is ready. */
  /** Waits until the first instance listens on `channel` (or, with `false`, no longer does). */
  async function listening(channel: string, expected = true) {
    await vi.waitFor(
      async () => {
        const [, count] = (await probe.pubsub('NUMSUB', `${a.tablePrefix}${channel}`)) as [string, number];
        expect(count > 0).toBe(expected);
      },
      { timeout: 10_000 },
    );
  }

  /** An author with three followers, past FANOUT_MAX_FOLLOWERS: its first post (`registered`) went to its outbox and registered it as an outbox author. */
  const outboxStar = async () => {
    const star = await a.signUp();
    const fans = await Promise.all([a.signUp(), a.signUp(), a.signUp()]);
    for (const fan of fans) await follow(a, fan.token, star.id);
    return { star, fans, registered: await postOnB(star.token, 'first as a star') };
  };

  const fanOut = async (token: string, postId: string) =>
    (
      await gqlAt(
        b.url,
        'query($id: ID!) { post(id: $id) { fanOut { state delivered total } } }',
        { id: postId },
        token,
      )
    ).data!.post.fanOut;
  const postOnB = async (token: string, text: string) => {
    const result = await gqlAt(
      b.url,
      'mutation($text: String!) { createPost(input: { text: $text }) { post { id } } }',
      { text },
      token,
    );
    return result.data!.createPost.post.id as string;
  };

  it(
    'delivers a post made on the second instance to a subscriber on the first within seconds; reconnect and catch-up lose nothing',
    { timeout: 180_000 },
    async () => {
      const ada = await a.signUp();
      const bob = await a.signUp();
      await follow(a, bob.token, ada.id);
      let live = connect(a.url, bob.token);
      let posts = live.subscribe(TIMELINE_POSTS);
      await listening(`timeline:${bob.id}`);

      const first = await postOnB(ada.token, 'from the other instance');
      // No worker yet: the fan-out waits in the queue.
      expect(await fanOut(ada.token, first)).toEqual({ state: 'PENDING', delivered: 0, total: 1 });
      worker = startWorkerProcess(a, { ...shared(), QUEUE_POLL_MS: '100', LOG_LEVEL: 'info' });
      // Starting a process takes long on a busy machine; the delivery is timed from the worker's start.
      await worker.logLine((entry) => entry.msg === 'worker started');
      await vi.waitFor(() => expect(postIds(posts)).toEqual([first]), { timeout: 30_000 });
      expect(posts.data[0]!.timelinePostAdded.node.author.handle).toBe(ada.handle);
      // The entries are announced as they are written; the fan-out's progress record follows them (its page's finish step).
      await vi.waitFor(
        async () => expect(await fanOut(ada.token, first)).toEqual({ state: 'DONE', delivered: 1, total: 1 }),
        { timeout: 10_000 },
      );
      const seenCursor = posts.data[0]!.timelinePostAdded.cursor as string;

      // The connection drops; meanwhile two posts are delivered.
      await live.dispose();
      const missed = [await postOnB(ada.token, 'missed 1'), await postOnB(ada.token, 'missed 2')];
      await vi.waitFor(
        async () => {
          for (const id of missed) expect((await fanOut(ada.token, id)).state).toBe('DONE');
        },
        { timeout: 30_000 },
      );

      // Reconnect and subscribe first, then catch up from the newest post seen: nothing falls in between.
      live = connect(a.url, bob.token);
      posts = live.subscribe(TIMELINE_POSTS);
      await listening(`timeline:${bob.id}`);
      const later = await postOnB(ada.token, 'after the reconnect');
      const caughtUp = await a.gql(
        'query($id: ID!, $before: String) { user(id: $id) { timeline(last: 20, before: $before) { edges { node { id } } pageInfo { hasPreviousPage } } } }',
        { id: bob.id, before: seenCursor },
        bob.token,
      );
      const fetched = caughtUp.data!.user.timeline.edges.map(
        (edge: { node: { id: string } }) => edge.node.id,
      ) as string[];
      expect(fetched.slice(-2)).toEqual([...missed].reverse());
      expect(caughtUp.data!.user.timeline.pageInfo.hasPreviousPage).toBe(false);
      await vi.waitFor(() => expect(postIds(posts)).toEqual([later]), { timeout: 30_000 });
      expect(new Set([...fetched, ...postIds(posts)])).toEqual(new Set([...missed, later]));
    },
  );

  it("delivers an outbox author's post (not fanned out) from the author's channel", { timeout: 60_000 }, async () => {
    const { star, fans, registered } = await outboxStar();
    expect(await fanOut(star.token, registered)).toEqual({ state: 'DONE', delivered: 0, total: 0 });

    const live = connect(a.url, fans[0]!.token);
    const posts = live.subscribe(TIMELINE_POSTS);
    await listening(`author:${star.id}`);
    const next = await postOnB(star.token, 'straight from the outbox');
    await vi.waitFor(() => expect(postIds(posts)).toEqual([next]), { timeout: 30_000 });

    // The star's repost (on the second instance) comes the same way, with the star as its reason, as the home page shows it.
    const reposts = live.subscribe('subscription { timelinePostAdded { cursor node { id } repostedBy { id } } }');
    const original = await createPost(a, fans[1]!.token, 'worth a repost');
    const reposted = await gqlAt(
      b.url,
      'mutation($id: ID!) { repost(postId: $id) { post { id } } }',
      { id: original },
      star.token,
    );
    expect(reposted.errors).toBeUndefined();
    await vi.waitFor(
      () =>
        expect(reposts.data.map((data) => data.timelinePostAdded)).toEqual([
          { cursor: expect.any(String), node: { id: original }, repostedBy: { id: star.id } },
        ]),
      {
        timeout: 30_000,
      },
    );
    const home = await a.gql(
      '{ viewer { timeline(first: 1) { edges { cursor node { id } repostedBy { id } } } } }',
      {},
      fans[0]!.token,
    );
    expect(home.data!.viewer.timeline.edges).toEqual(reposts.data.map((data) => data.timelinePostAdded));
  });

  it(
    'hears an outbox author followed on another instance after the subscription started, and stops on the unfollow',
    { timeout: 60_000 },
    async () => {
      const { star } = await outboxStar();
      const newcomer = await a.signUp();
      const live = connect(a.url, newcomer.token);
      const posts = live.subscribe(TIMELINE_POSTS);
      await listening(`timeline:${newcomer.id}`);

      // The follow goes through the second instance; the subscription on the first hears of it through Redis.
      const followed = await gqlAt(
        b.url,
        'mutation($id: ID!) { follow(userId: $id) { user { id } } }',
        { id: star.id },
        newcomer.token,
      );
      expect(followed.errors).toBeUndefined();
      await listening(`author:${star.id}`);
      const next = await postOnB(star.token, 'for the newcomer too');
      await vi.waitFor(() => expect(postIds(posts)).toEqual([next]), { timeout: 30_000 });

      const unfollowed = await gqlAt(
        b.url,
        'mutation($id: ID!) { unfollow(userId: $id) { user { id } } }',
        { id: star.id },
        newcomer.token,
      );
      expect(unfollowed.errors).toBeUndefined();
      await listening(`author:${star.id}`, false);
    },
  );

  it(
    'stops listening to an outbox author whose block ended the follow, and does not start again at the unblock',
    { timeout: 60_000 },
    async () => {
      const { star } = await outboxStar();
      const follower = await a.signUp();
      await follow(a, follower.token, star.id);
      const live = connect(a.url, follower.token);
      const posts = live.subscribe(TIMELINE_POSTS);
      await listening(`author:${star.id}`);

      // The star blocks the follower on the second instance, and unblocks: the follow is gone, and so is the subscription's channel.
      for (const verb of ['block', 'unblock']) {
        const result = await gqlAt(
          b.url,
          `mutation($id: ID!) { ${verb}(userId: $id) { user { id } } }`,
          { id: follower.id },
          star.token,
        );
        expect(result.errors).toBeUndefined();
      }
      await listening(`author:${star.id}`, false);
      await postOnB(star.token, 'not for a former follower');
      expect(postIds(posts)).toEqual([]);
    },
  );

  it('stops cleanly', async () => {
    b.child.kill('SIGTERM');
    expect(await b.exited).toBe(0);
    if (worker) {
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
    }
  });
});
