import { buildSchema, isObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadTypeDefs } from '../../src/graphql/apollo.js';
import { declaredCost } from '../../src/graphql/limits/cost-directives.js';
import { totals } from '../../src/observability/cost.js';
import {
  TEST_PASSWORD,
  errorCodes,
  startTestApp,
  uniqueHandle,
  type GraphQLResponse,
  type TestApp,
} from '../helpers/app.js';
import { connectLive } from '../helpers/live.js';
import { createPost, follow } from '../helpers/posts.js';
import { waitForQueueToDrain } from '../helpers/queue.js';
import { startRedis } from '../helpers/redis.js';

/** The first High request of the review (issue 29): each post of a public page of 100 asks three lists for one entry. */
const PUBLIC_ALIAS = (i: number) =>
  `p${i}: publicTimeline(first: 100) { edges { node { likedBy(first: 1) { totalCount } comments(first: 1) { edges { cursor } } repostedBy(first: 1) { totalCount } } } }`;
const aliases = (n: number, alias: (i: number) => string) => Array.from({ length: n }, (_, i) => alias(i)).join(' ');

/** The second: a viewer's hundred notification groups, fifteen times over, each with an actor. */
const NOTIFICATIONS_ALIAS = (i: number) =>
  `n${i}: notifications(first: 100) { edges { node { id actors(first: 1) { id } } } }`;

const requests = (response: GraphQLResponse) => response.extensions!.cost.requests as number;

/** Runs `send` and checks that no DynamoDB or graph request was made meanwhile (the in-process worker is off). */
async function withoutStoreRequests<T>(send: () => Promise<T>): Promise<T> {
  const before = structuredClone(totals);
  const result = await send();
  expect(totals.dynamodb.requests).toBe(before.dynamodb.requests);
  expect(totals.graph.requests).toBe(before.graph.requests);
  return result;
}

let t: TestApp;
let author: { id: string; handle: string; token: string };
let reader: { id: string; handle: string; token: string };
let followers: { id: string; handle: string; token: string }[];

beforeAll(async () => {
  t = await startTestApp({ CACHE: 'off' });
  [author, reader] = await Promise.all([t.signUp(), t.signUp()]);
  // A hundred posts, each mentioning the reader (a hundred notification groups), a few liked and commented on.
  for (let i = 0; i < 100; i++) await createPost(t, author.token, `post ${i} for @${reader.handle}`);
  const page = await t.gql('{ publicTimeline(first: 3) { edges { node { id } } } }');
  for (const { node } of page.data!.publicTimeline.edges) {
    await t.gql('mutation($id: ID!) { likePost(postId: $id) { post { id } } }', { id: node.id }, reader.token);
    await t.gql(
      'mutation($id: ID!) { addComment(postId: $id, text: "hi") { comment { id } } }',
      { id: node.id },
      reader.token,
    );
  }
  // Twenty followers of the author, the reader's follows among them, so that user lists are full pages.
  followers = await Promise.all(Array.from({ length: 20 }, () => t.signUp()));
  for (const follower of [...followers, reader])
    await t.gql('mutation($id: ID!) { follow(userId: $id) { user { id } } }', { id: author.id }, follower.token);
  for (const followed of followers.slice(0, 5))
    await t.gql('mutation($id: ID!) { follow(userId: $id) { user { id } } }', { id: followed.id }, reader.token);
  await t.gql('mutation($id: ID!) { block(userId: $id) { user { id } } }', { id: followers[19]!.id }, reader.token);
  await t.gql('mutation($id: ID!) { mute(userId: $id) { user { id } } }', { id: followers[18]!.id }, reader.token);
  await waitForQueueToDrain(t);
  // Nothing else runs in this process from here: every store request counted is one of the tests'.
  await t.app.stop();
  t = await startTestApp({ CACHE: 'off', TABLE_PREFIX: t.tablePrefix, WORKER_ENABLED: 'false' });
}, 180_000);
afterAll(async () => {
  await t.stop();
});

describe('the review’s High requests', () => {
  it('refuses the eleven aliases of the public page before any store request, anonymous or not', async () => {
    for (const token of [undefined, reader.token]) {
      const refused = await withoutStoreRequests(() => t.gql(`{ ${aliases(11, PUBLIC_ALIAS)} }`, {}, token));
      expect(refused.status).toBe(400);
      expect(errorCodes(refused)).toEqual(['QUERY_TOO_EXPENSIVE']);
      expect(refused.errors![0]!.extensions!.cost).toBeGreaterThan(10_000);
      expect(refused.extensions!.cost).toMatchObject({
        estimated: refused.errors![0]!.extensions!.cost,
        maxCost: 10_000,
        requests: 0,
      });
    }
  });

  it('runs one alias of it within its estimate, reading no list for a connection asked only for its totalCount', async () => {
    const one = await t.gql(`{ ${PUBLIC_ALIAS(0)} }`);
    expect(one.errors).toBeUndefined();
    expect(one.data!.p0.edges).toHaveLength(100);
    expect(one.data!.p0.edges.filter((edge: any) => edge.node.likedBy.totalCount === 1)).toHaveLength(3);
    // Their counts join the page's hydration: a page of 40 (within one batch of keys) sends exactly as many requests without them.
    const page = (fields: string) => t.gql(`{ publicTimeline(first: 40) { edges { node { ${fields} } } } }`);
    const withTotals = await page(
      'likedBy(first: 1) { totalCount } comments(first: 1) { edges { cursor } } repostedBy(first: 1) { totalCount }',
    );
    const withoutTotals = await page('comments(first: 1) { edges { cursor } }');
    expect(withTotals.data!.publicTimeline.edges).toHaveLength(40);
    expect(requests(withTotals)).toBe(requests(withoutTotals));
    // Its estimate bounds what it sends: 20 points a request.
    expect(requests(one) * 20).toBeLessThanOrEqual(one.extensions!.cost.estimated);
  });

  it('reads a page of notification groups with their actors in as many requests for 100 groups as for 10', async () => {
    const page = (first: number) =>
      t.gql(
        `{ viewer { notifications(first: ${first}) { edges { node { id actors(first: 1) { id } } } } } }`,
        {},
        reader.token,
      );
    const [ten, hundred] = [await page(10), await page(100)];
    expect(hundred.data!.viewer.notifications.edges).toHaveLength(100);
    expect(hundred.data!.viewer.notifications.edges.every((edge: any) => edge.node.actors[0].id === author.id)).toBe(
      true,
    );
    // As many waves, and a few requests whatever the size (BatchGetItem takes 100 keys).
    expect(hundred.extensions!.cost.waves).toBe(ten.extensions!.cost.waves);
    expect(requests(hundred)).toBeLessThanOrEqual(8);
    // Fifteen of them, the review's request, are refused up front; four run, in four pages' few requests.
    const fifteen = await withoutStoreRequests(() =>
      t.gql(`{ viewer { ${aliases(15, NOTIFICATIONS_ALIAS)} } }`, {}, reader.token),
    );
    expect(errorCodes(fifteen)).toEqual(['QUERY_TOO_EXPENSIVE']);
    const four = await t.gql(`{ viewer { ${aliases(4, NOTIFICATIONS_ALIAS)} } }`, {}, reader.token);
    expect(four.errors).toBeUndefined();
    expect(requests(four)).toBeLessThanOrEqual(4 * requests(hundred));
  });
});

describe('node lookups', () => {
  it('price what an id names: a notification by its weight, an id of another kind by its own', async () => {
    const page = await t.gql('{ viewer { notifications(first: 2) { edges { node { id } } } } }', {}, reader.token);
    const [first, second] = page.data!.viewer.notifications.edges.map((edge: { node: { id: string } }) => edge.node.id);
    const estimated = async (query: string, variables: Record<string, unknown> = {}) => {
      const result = await t.gql(query, variables, reader.token);
      expect(result.errors).toBeUndefined();
      return result.extensions!.cost.estimated as number;
    };
    // The account check (20), and the object: a notification 21, a user 1.
    expect(await estimated(`{ node(id: "${first}") { id } }`)).toBe(41);
    expect(await estimated('query($id: ID!) { node(id: $id) { id } }', { id: first })).toBe(41);
    expect(await estimated(`{ node(id: "${reader.id}") { id } }`)).toBe(21);
    // A list is priced at its heaviest id, for each.
    expect(await estimated('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: [first, second] })).toBe(62);
    expect(await estimated('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: [reader.id, author.id] })).toBe(
      22,
    );
  });
});

describe('the store-request budget', () => {
  it('fails the fields still to read with BUDGET_EXCEEDED once MAX_STORE_REQUESTS are sent, and the rest of the response stands', async () => {
    const tight = await startTestApp({
      CACHE: 'off',
      TABLE_PREFIX: t.tablePrefix,
      WORKER_ENABLED: 'false',
      MAX_STORE_REQUESTS: '30',
    });
    try {
      const query = `query($id: ID!) { user(id: $id) { handle } ${PUBLIC_ALIAS(0)} }`;
      const before = structuredClone(totals);
      const result = await tight.gql(query, { id: author.id });
      expect(result.status).toBe(200);
      expect(result.data!.user).toEqual({ handle: author.handle });
      // A post's comments are non-null: the error nulls the nearest nullable field, the page's root field.
      expect(result.data!.p0).toBeNull();
      expect(new Set(errorCodes(result))).toEqual(new Set(['BUDGET_EXCEEDED']));
      expect(result.errors![0]!.extensions).toMatchObject({ maxRequests: 30 });
      expect(result.extensions!.cost).toMatchObject({ requests: 30, maxRequests: 30 });
      // Requests of fields nulled by an error may still be answered after the response; none beyond the budget is sent.
      await expect
        .poll(() => totals.dynamodb.requests + totals.graph.requests - before.dynamodb.requests - before.graph.requests)
        .toBe(30);
    } finally {
      await tight.app.stop();
    }
  });

  it('never stops a mutation between its writes: its own work is counted, not refused', async () => {
    const tight = await startTestApp({
      CACHE: 'off',
      TABLE_PREFIX: t.tablePrefix,
      WORKER_ENABLED: 'false',
      MAX_STORE_REQUESTS: '1',
    });
    try {
      const post = await tight.gql(
        'mutation { createPost(input: { text: "within budget" }) { post { id text } } }',
        {},
        author.token,
      );
      expect(post.errors).toBeUndefined();
      expect(post.data!.createPost.post.text).toBe('within budget');
      expect(requests(post)).toBeGreaterThan(1);
    } finally {
      await tight.app.stop();
    }
  });
});

describe('declared costs, calibrated', () => {
  const schema = buildSchema(loadTypeDefs());
  /** A field's declared weight: 20 points for each request it sends of its own. */
  const weight = (type: string, field: string) => {
    const parent = schema.getType(type);
    return isObjectType(parent) ? (declaredCost(parent.getFields()[field]!).cost ?? 0) : 0;
  };
  /** What adding `field` sends beyond `base`: at most its declared requests for each of `n` parents, and two batches for what it returns. */
  async function calibrate(type: string, field: string, n: number, query: (field: string) => string) {
    const base = await t.gql(query(''), { a: author.id, r: reader.id }, reader.token);
    const asked = await t.gql(query(field), { a: author.id, r: reader.id }, reader.token);
    expect(asked.errors).toBeUndefined();
    const sent = requests(asked) - requests(base);
    expect(sent, `${type}.${field.split(/[ ({]/)[0]} sent ${sent} requests more for ${n} parents`).toBeLessThanOrEqual(
      (n * weight(type, field.split(/[ ({]/)[0]!)) / 20 + 2,
    );
    expect(sent).toBeGreaterThan(0);
  }
  const ids = '{ edges { node { id } } }';

  it.each(['likedBy(first: 5)', 'repostedBy(first: 5)', 'comments(first: 5)'])(
    'Post.%s on each post of a page of 20',
    (field) =>
      calibrate('Post', `${field} ${ids}`, 20, (f) => `{ publicTimeline(first: 20) { edges { node { id ${f} } } } }`),
  );

  it.each([
    'followers(first: 5)',
    'following(first: 5)',
    'knownFollowers(first: 5)',
    'mutuals(first: 5)',
    'posts(first: 5)',
  ])('User.%s on each user of a page of 20', (field) =>
    calibrate(
      'User',
      `${field} ${ids}`,
      20,
      (f) => `query($a: ID!) { user(id: $a) { followers(first: 20) { edges { node { id ${f} } } } } }`,
    ),
  );

  it.each([
    ['User', `timeline(first: 20) ${ids}`],
    ['User', `notifications(first: 20) ${ids}`],
    ['User', 'unreadNotificationCount'],
    ['User', `blockedUsers(first: 20) ${ids}`],
    ['User', `mutedUsers(first: 20) ${ids}`],
  ])('%s.%s of the viewer', (type, field) => calibrate(type, field, 1, (f) => `{ viewer { id ${f} } }`));

  it.each([
    ['Query', `tagTimeline(tag: "cost", first: 20) ${ids}`],
    ['Query', `publicTimeline(first: 20) ${ids}`],
    ['Query', 'suggestedFollows(first: 20) { user { id } via { id } }'],
    ['Query', 'degreesOfSeparation(from: $r, to: $a) { path { id } }'],
    ['Query', `network(userId: $r, maxDepth: 3) ${ids}`],
    // Every account of the file has a handle starting "u": the most candidates a query reads.
    ['Query', `searchUsers(query: "u", first: 20) { edges { node { id handle followerCount viewerFollows } } }`],
    ['Query', 'trendingTags(first: 20) { tag count }'],
    ['Query', 'searchTags(prefix: "a", first: 20) { tag count }'],
  ])('%s.%s', (type, field) =>
    calibrate(type, field, 1, (f) => `query($a: ID!, $r: ID!) { a: user(id: $a) { id } r: user(id: $r) { id } ${f} }`),
  );

  it('Comment.replies on each comment of a page of 20, Comment.parent and Query.comment', async () => {
    const post = await createPost(t, author.token, 'calibrate threads');
    const add = async (text: string, replyTo?: string) =>
      (
        await t.gql(
          'mutation($p: ID!, $t: String!, $r: ID) { addComment(postId: $p, text: $t, replyTo: $r) { comment { id } } }',
          { p: post, t: text, r: replyTo },
          reader.token,
        )
      ).data!.addComment.comment.id as string;
    const tops: string[] = [];
    for (let i = 0; i < 20; i++) tops.push(await add(`top ${i}`));
    const replies = await Promise.all(tops.map((top) => add('reply', top)));
    const deep = await add('deeper', replies[0]);
    await calibrate(
      'Comment',
      `replies(first: 5) ${ids}`,
      20,
      (f) => `{ post(id: "${post}") { comments(first: 20) { edges { node { id ${f} } } } } }`,
    );
    await calibrate('Comment', 'parent { id parent { id } }', 1, (f) => `{ comment(id: "${deep}") { id ${f} } }`);
    await calibrate('Query', `comment(id: "${deep}") { id }`, 1, (f) => `{ rateLimit { cost } ${f} }`);
  });

  it('every mutation sends at most its declared requests, payload included', async () => {
    const me = await t.signUp();
    const other = await t.signUp();
    const post = (
      await t.gql('mutation { createPost(input: { text: "calibrate" }) { post { id } } }', {}, author.token)
    ).data!.createPost.post.id;
    const sent: [string, number, number][] = [];
    const run = async (
      field: string,
      query: string,
      variables: Record<string, unknown> = {},
      token: string | null = me.token,
    ) => {
      const result = await t.gql(query, variables, token ?? undefined);
      expect(result.errors, `${field}: ${JSON.stringify(result.errors)}`).toBeUndefined();
      // A signed-in request's account check is its own line of the estimate, not the mutation's.
      sent.push([field, requests(result), weight('Mutation', field) / 20 + (token ? 1 : 0)]);
      return result.data!;
    };
    const idArg = { id: other.id };
    await run('updateProfile', 'mutation { updateProfile(input: { bio: "hi" }) { id } }');
    // A display name moves the account's search entries: a read of the profile, then one transaction.
    await run('updateProfile', 'mutation { updateProfile(input: { displayName: "Zoë Calibrated" }) { id } }');
    await run('follow', 'mutation($id: ID!) { follow(userId: $id) { user { id } } }', idArg);
    await run('unfollow', 'mutation($id: ID!) { unfollow(userId: $id) { user { id } } }', idArg);
    await run('mute', 'mutation($id: ID!) { mute(userId: $id) { user { id } } }', idArg);
    await run('unmute', 'mutation($id: ID!) { unmute(userId: $id) { user { id } } }', idArg);
    // A block between accounts that follow each other ends both follows: its dearest case.
    await follow(t, me.token, other.id);
    await follow(t, other.token, me.id);
    await run('block', 'mutation($id: ID!) { block(userId: $id) { user { id } } }', idArg);
    await run('unblock', 'mutation($id: ID!) { unblock(userId: $id) { user { id } } }', idArg);
    const mine = await run(
      'createPost',
      'mutation { createPost(input: { text: "mine", tags: ["a", "b"] }) { post { id } } }',
    );
    for (const field of ['likePost', 'unlikePost', 'viewPost', 'repost', 'unrepost'])
      await run(field, `mutation($id: ID!) { ${field}(postId: $id) { post { id } } }`, { id: post });
    await run('react', 'mutation($id: ID!) { react(postId: $id, kind: "clap") { post { id } } }', { id: post });
    const added = await run(
      'addComment',
      'mutation($id: ID!) { addComment(postId: $id, text: "hi") { comment { id } } }',
      { id: post },
    );
    const reply = await run(
      'addComment',
      'mutation($id: ID!, $to: ID!) { addComment(postId: $id, replyTo: $to, text: "re") { comment { id } } }',
      {
        id: post,
        to: added.addComment.comment.id,
      },
    );
    // The dearest comments: a retry with its key, which reads the first one back, and a reply at COMMENT_MAX_DEPTH (8).
    const ADD_REPLY =
      'mutation($id: ID!, $to: ID!, $k: String) { addComment(postId: $id, replyTo: $to, text: "re", idempotencyKey: $k) { comment { id } } }';
    let deepest = reply.addComment.comment.id as string;
    for (let depth = 2; depth <= 8; depth++)
      deepest = (await t.gql(ADD_REPLY, { id: post, to: deepest }, me.token)).data!.addComment.comment.id;
    for (const to of [added.addComment.comment.id, deepest])
      for (let attempt = 0; attempt < 2; attempt++)
        await run('addComment', ADD_REPLY, { id: post, to, k: `calibrate-${to}` });
    for (let attempt = 0; attempt < 2; attempt++)
      await run(
        'addComment',
        'mutation($id: ID!, $k: String) { addComment(postId: $id, text: "again", idempotencyKey: $k) { comment { id } } }',
        { id: post, k: 'calibrate-top' },
      );
    await run(
      'deleteComment',
      'mutation($id: ID!) { deleteComment(commentId: $id) { deletedCommentId post { id commentCount } } }',
      { id: added.addComment.comment.id },
    );
    await run(
      'deleteComment',
      'mutation($id: ID!) { deleteComment(commentId: $id) { deletedCommentId post { id commentCount } } }',
      { id: reply.addComment.comment.id },
    );
    await run('deletePost', 'mutation($id: ID!) { deletePost(id: $id) { deletedPostId } }', {
      id: mine.createPost.post.id,
    });
    await run('markNotificationsRead', 'mutation { markNotificationsRead { id } }', {}, reader.token);
    const session = await run(
      'signIn',
      `mutation { signIn(input: { handle: "${me.handle}", password: "${TEST_PASSWORD}" }) { token refreshToken } }`,
      {},
      null,
    );
    const refreshed = await run(
      'refreshSession',
      'mutation($r: String!) { refreshSession(refreshToken: $r) { token refreshToken } }',
      { r: session.signIn.refreshToken },
      null,
    );
    await run(
      'signOut',
      'mutation($r: String!) { signOut(refreshToken: $r) }',
      { r: refreshed.refreshSession.refreshToken },
      null,
    );
    await run(
      'changePassword',
      `mutation { changePassword(currentPassword: "${TEST_PASSWORD}", newPassword: "another long password") }`,
    );
    await run(
      'signUp',
      `mutation { signUp(input: { handle: "${uniqueHandle()}", password: "${TEST_PASSWORD}" }) { token } }`,
      {},
      null,
    );
    await run(
      'deleteAccount',
      `mutation { deleteAccount(password: "${TEST_PASSWORD}") { deletedUserId } }`,
      {},
      other.token,
    );
    for (const [field, requests, declared] of sent)
      expect(requests, `${field} sent ${requests}`).toBeLessThanOrEqual(declared);
  });
});

describe('the rate of cost', () => {
  /** 120 points: the public timeline (80) and 20 posts with their authors. */
  const PAGE =
    '{ publicTimeline(first: 20) { edges { node { id author { handle } } } } rateLimit { cost remaining limit restoreRate resetAt } }';
  const SLOW = { RATE_LIMIT_POINTS: '500', RATE_LIMIT_POINTS_PER_SECOND: '1', MAX_QUERY_COST: '500' };
  /** One store request. */
  const LOOKUP = '{ post(id: "pst_01M8MK4QEZP37ZH02K2Z1D1KSA") { id } }';
  // A table of its own whose public timeline stays empty, so that a page sends no more than its estimate pays for; a
  // tag of it reads on, past the entries of deleted posts that no worker takes away.
  let quiet: TestApp;
  let quietReader: { token: string };
  let READ_ON: string;
  beforeAll(async () => {
    quiet = await startTestApp({ WORKER_ENABLED: 'false' });
    quietReader = await quiet.signUp();
    const writer = await quiet.signUp();
    const tag = uniqueHandle('gone');
    const posts: string[] = [];
    for (let i = 0; i < 12; i++) posts.push(await createPost(quiet, writer.token, `gone ${i}`, [tag]));
    for (const id of posts.slice(2))
      await quiet.gql('mutation($id: ID!) { deletePost(id: $id) { deletedPostId } }', { id }, writer.token);
    READ_ON = `{ tagTimeline(tag: "${tag}", first: 2) { edges { node { id } } } rateLimit { remaining } }`;
  });
  afterAll(async () => {
    await quiet.stop();
  });

  it('takes each operation’s estimate from its client’s bucket, and refuses one it cannot pay for with 429 and Retry-After', async () => {
    const limited = await startTestApp({
      ...SLOW,
      CACHE: 'off',
      TABLE_PREFIX: quiet.tablePrefix,
      WORKER_ENABLED: 'false',
    });
    try {
      const first = await limited.gql(PAGE);
      expect(first.data!.rateLimit).toMatchObject({ cost: 120, limit: 500, restoreRate: 1 });
      expect(first.data!.rateLimit.remaining).toBeGreaterThanOrEqual(380);
      expect(first.extensions!.cost).toMatchObject({
        estimated: 120,
        maxCost: 500,
        rateLimit: { limit: 500, restoreRate: 1 },
      });
      for (let i = 0; i < 3; i++) expect((await limited.gql(PAGE)).errors).toBeUndefined();
      // About 20 points are left: the next page is refused before it reads anything.
      const response = await withoutStoreRequests(() =>
        fetch(`${limited.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: PAGE }),
        }),
      );
      expect(response.status).toBe(429);
      const body = (await response.json()) as GraphQLResponse;
      expect(errorCodes(body)).toEqual(['RATE_LIMITED']);
      const { retryAfterSeconds, remaining } = body.errors![0]!.extensions!;
      expect(remaining).toBeLessThan(120);
      expect(retryAfterSeconds).toBe(Math.ceil(120 - remaining));
      expect(response.headers.get('retry-after')).toBe(String(retryAfterSeconds));
      expect(body.extensions!.cost).toMatchObject({ estimated: 120, requests: 0, rateLimit: { remaining } });
      // A signed-in account has a bucket of its own.
      expect((await limited.gql(PAGE, {}, quietReader.token)).errors).toBeUndefined();
    } finally {
      await limited.app.stop();
    }
  });

  it('charges a subscription its estimate when it starts, from its account’s bucket', async () => {
    const limited = await startTestApp({
      ...SLOW,
      CACHE: 'off',
      TABLE_PREFIX: quiet.tablePrefix,
      WORKER_ENABLED: 'false',
    });
    const live = connectLive(limited.url, quietReader.token);
    try {
      // Three pages, signed in (3 × (120 + the account check's 20) of the 500 points), leave 80: less than a post edge
      // with 50 likers (20 + 1 + 1 + 20 + 50 = 92), enough for its cursor alone (20).
      for (let i = 0; i < 3; i++) expect((await limited.gql(PAGE, {}, quietReader.token)).errors).toBeUndefined();
      const costly =
        'subscription { timelinePostAdded { node { id author { handle } likedBy(first: 50) { edges { node { id } } } } } }';
      const refused = live.subscribe(costly);
      await vi.waitFor(() => expect(refused.ended).toBe(true), { timeout: 10_000 });
      expect(refused.errors.map((error) => error.extensions?.code)).toEqual(['RATE_LIMITED']);
      expect(refused.errors[0]!.extensions!.retryAfterSeconds).toBeGreaterThan(0);
      // A cheap one still fits in what is left.
      const cheap = live.subscribe('subscription { timelinePostAdded { cursor } }');
      await expect.poll(() => live.acknowledged).toBe(1);
      expect(cheap.ended).toBe(false);
    } finally {
      await live.dispose();
      await limited.app.stop();
    }
  });

  it('shares the buckets between instances through Redis, and counts in each instance while Redis is down', async () => {
    const redis = await startRedis();
    const env = {
      ...SLOW,
      CACHE: 'off',
      TABLE_PREFIX: quiet.tablePrefix,
      WORKER_ENABLED: 'false',
      REDIS_URL: redis.url,
    };
    const [a, b] = [await startTestApp(env), await startTestApp(env)];
    try {
      // What an operation sent past its estimate is taken from the shared bucket too.
      const past = await a.gql(READ_ON);
      const { estimated, requests, rateLimit } = past.extensions!.cost;
      const owed = requests * 20 - estimated;
      expect(owed).toBeGreaterThan(0);
      expect(Math.abs(past.data!.rateLimit.remaining - rateLimit.remaining - owed)).toBeLessThanOrEqual(1);
      // Then a page at a time, until what is left is less than a page.
      let pages = 0;
      while (pages < 5 && (await a.gql(PAGE)).errors === undefined) pages += 1;
      const refused = await b.gql(PAGE);
      expect(refused.status).toBe(429);
      expect(errorCodes(refused)).toEqual(['RATE_LIMITED']);
      await redis.stop();
      // Redis only speeds the service up: without it, b counts this client in its own memory.
      const alone = await b.gql(PAGE);
      expect(alone.errors).toBeUndefined();
      expect(alone.data!.rateLimit.remaining).toBe(380);
    } finally {
      await a.app.stop();
      await b.app.stop();
      await redis.stop();
    }
  });

  it('takes what an operation sent past its estimate once it has run, 20 points a store request, into debt', async () => {
    const limited = await startTestApp({
      RATE_LIMIT_POINTS: '150',
      RATE_LIMIT_POINTS_PER_SECOND: '1',
      MAX_QUERY_COST: '150',
      CACHE: 'off',
      TABLE_PREFIX: quiet.tablePrefix,
      WORKER_ENABLED: 'false',
    });
    try {
      // A lone lookup is priced as the store request it sends, not as the key it would take in a batch.
      expect((await limited.gql(LOOKUP)).extensions!.cost).toMatchObject({ estimated: 20, requests: 1 });
      const past = await limited.gql(READ_ON);
      const { estimated, requests, rateLimit } = past.extensions!.cost;
      expect(requests * 20).toBeGreaterThan(estimated);
      // `Query.rateLimit` is the bucket once the estimate was paid, `extensions` once the rest was.
      const owed = requests * 20 - estimated;
      expect(past.data!.rateLimit.remaining - owed).toBeLessThan(0);
      expect(rateLimit.remaining).toBe(0);
      // Below nothing, the bucket lends nothing: even an operation that costs nothing waits until it has refilled.
      const refused = await limited.gql('{ rateLimit { remaining } }');
      expect(errorCodes(refused)).toEqual(['RATE_LIMITED']);
      expect(refused.errors![0]!.extensions!.retryAfterSeconds).toBeGreaterThan(1);
    } finally {
      await limited.app.stop();
    }
  });
});
