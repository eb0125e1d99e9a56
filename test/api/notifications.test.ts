import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import type { TaskPayload } from '../../src/domain/tasks.js';
import { NotifyHandler } from '../../src/usecases/tasks/notify.js';
import { NotificationCheck } from '../../src/usecases/tasks/steps/notification-check.js';
import { createUseCases } from '../../src/usecases/use-cases.js';
import { errorCodes, startTestApp, type TestApp } from '../helpers/app.js';
import { createPost, follow, unfollow } from '../helpers/posts.js';
import { waitForQueueToDrain } from '../helpers/queue.js';

type Account = { id: string; handle: string; token: string };

/** A small bound, so that trimming shows with a dozen groups; other tests here stay well under it. */
const MAX = 10;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ NOTIFICATIONS_MAX: String(MAX) });
});
afterAll(async () => {
  await t.stop();
});

interface Group {
  id: string;
  kind: string;
  post: { id: string } | null;
  actors: { id: string }[];
  actorCount: number;
  updatedAt: string;
  read: boolean;
}

const GROUP = 'id kind post { id } actors { id } actorCount updatedAt read';
const NOTIFICATIONS = `query($id: ID!, $first: Int, $after: String, $last: Int, $before: String) {
  user(id: $id) {
    unreadNotificationCount
    notifications(first: $first, after: $after, last: $last, before: $before) { edges { cursor node { ${GROUP} } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }
  }
}`;

/** The user's notifications once the queue is drained: every group, newest first, and the unread count. */
async function notifications(user: Account, args: Record<string, unknown> = { first: 100 }) {
  await waitForQueueToDrain(t);
  const data = await t.gqlData(NOTIFICATIONS, { id: user.id, ...args }, user.token);
  const connection = data.user.notifications as {
    edges: { cursor: string; node: Group }[];
    pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null };
  };
  return {
    groups: connection.edges.map((edge) => edge.node),
    edges: connection.edges,
    pageInfo: connection.pageInfo,
    unread: data.user.unreadNotificationCount as number,
  };
}

const act = (mutation: string, token: string, postId: string) =>
  t.gqlData(`mutation($id: ID!) { ${mutation}(postId: $id) { post { id } } }`, { id: postId }, token);
const users = (n: number) => Promise.all(Array.from({ length: n }, () => t.signUp()));
const ids = (group: Group | undefined) => group?.actors.map((a) => a.id);

describe('notifications', () => {
  it('groups likes per post, newest actor first, counts them, and takes them back on unlike', async () => {
    const [author, b, c, d] = await users(4);
    const post = await createPost(t, author!.token, 'like me');
    for (const liker of [b!, c!, d!]) await act('likePost', liker.token, post);
    // Your own like notifies nobody.
    await act('likePost', author!.token, post);
    let { groups, unread } = await notifications(author!);
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({ kind: 'LIKE', post: { id: post }, actorCount: 3, read: false });
    expect(ids(groups[0])).toEqual([d!.id, c!.id, b!.id]);
    expect(unread).toBe(1);

    // Taking the newest like back moves the group's time back to the next newest actor.
    const before = groups[0]!.updatedAt;
    await act('unlikePost', d!.token, post);
    ({ groups } = await notifications(author!));
    expect(ids(groups[0])).toEqual([c!.id, b!.id]);
    expect(groups[0]!.actorCount).toBe(2);
    expect(groups[0]!.updatedAt < before).toBe(true);

    await act('unlikePost', b!.token, post);
    await act('unlikePost', c!.token, post);
    ({ groups, unread } = await notifications(author!));
    expect(groups).toEqual([]);
    expect(unread).toBe(0);
  });

  it('groups follows per day, and an unfollow takes the follower out', async () => {
    const [user, b, c] = await users(3);
    await follow(t, b!.token, user!.id);
    await follow(t, c!.token, user!.id);
    let { groups, unread } = await notifications(user!);
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({ kind: 'FOLLOW', post: null, actorCount: 2 });
    expect(ids(groups[0])).toEqual([c!.id, b!.id]);
    expect(unread).toBe(1);
    await unfollow(t, c!.token, user!.id);
    ({ groups } = await notifications(user!));
    expect(ids(groups[0])).toEqual([b!.id]);
    await unfollow(t, b!.token, user!.id);
    ({ groups, unread } = await notifications(user!));
    expect(groups).toEqual([]);
    expect(unread).toBe(0);
  });

  it('notifies reposts, comments and mentions, moves an updated group to the top, and forgets a deleted post', async () => {
    const [author, b, c, d] = await users(4);
    const post = await createPost(t, author!.token, 'share me');
    await act('repost', b!.token, post);
    await t.gqlData(
      'mutation($id: ID!, $text: String!) { addComment(postId: $id, text: $text) { comment { id } } }',
      { id: post, text: `nice, @${d!.handle}` },
      c!.token,
    );
    const mentioning = await createPost(t, b!.token, `hello @${author!.handle}`);
    let { groups, unread } = await notifications(author!);
    expect(groups.map((g) => g.kind)).toEqual(['MENTION', 'COMMENT', 'REPOST']);
    expect(groups[0]).toMatchObject({ post: { id: mentioning }, actors: [{ id: b!.id }] });
    expect(groups[1]).toMatchObject({ post: { id: post }, actors: [{ id: c!.id }] });
    expect(unread).toBe(3);
    // The mention in the comment notifies d, about the post commented on.
    const mentioned = await notifications(d!);
    expect(mentioned.groups).toMatchObject([{ kind: 'MENTION', post: { id: post }, actors: [{ id: c!.id }] }]);

    // A new reposter moves the REPOST group to the top.
    await act('repost', d!.token, post);
    ({ groups } = await notifications(author!));
    expect(groups.map((g) => g.kind)).toEqual(['REPOST', 'MENTION', 'COMMENT']);
    expect(ids(groups[0])).toEqual([d!.id, b!.id]);
    await act('unrepost', d!.token, post);
    await act('unrepost', b!.token, post);
    ({ groups, unread } = await notifications(author!));
    expect(groups.map((g) => g.kind)).toEqual(['MENTION', 'COMMENT']);
    expect(unread).toBe(2);

    await t.gqlData('mutation($id: ID!) { deletePost(id: $id) { deletedPostId } }', { id: post }, author!.token);
    ({ groups, unread } = await notifications(author!));
    expect(groups.map((g) => g.kind)).toEqual(['MENTION']);
    expect(unread).toBe(1);
    // The mention in a comment on it goes too, with its count.
    expect(await notifications(d!)).toMatchObject({ groups: [], unread: 0 });
  });

  it('never notifies from a muted account, and hides an account blocked later', async () => {
    const [author, muted, blocked] = await users(3);
    const post = await createPost(t, author!.token, 'quiet please');
    await t.gqlData('mutation($id: ID!) { mute(userId: $id) { user { id } } }', { id: muted!.id }, author!.token);
    await act('likePost', muted!.token, post);
    await follow(t, muted!.token, author!.id);
    let { groups, unread } = await notifications(author!);
    expect(groups).toEqual([]);
    expect(unread).toBe(0);

    await act('likePost', blocked!.token, post);
    await follow(t, blocked!.token, author!.id);
    ({ groups } = await notifications(author!));
    expect(groups.map((g) => g.kind)).toEqual(['FOLLOW', 'LIKE']);
    await t.gqlData('mutation($id: ID!) { block(userId: $id) { user { id } } }', { id: blocked!.id }, author!.token);
    // The block ended the follow (its notification goes) and took the account out of the like's group, which went with its count.
    ({ groups, unread } = await notifications(author!));
    expect(groups).toEqual([]);
    expect(unread).toBe(0);
    // Nor can a blocked account mention the user.
    const refused = await t.gql(
      'mutation($input: CreatePostInput!) { createPost(input: $input) { post { id } } }',
      { input: { text: `@${author!.handle}` } },
      blocked!.token,
    );
    expect(errorCodes(refused)).toEqual(['FORBIDDEN']);
  });

  it('a block (either way) or a mute takes the account out of the groups it is in, so the unread count is what is shown', async () => {
    const [author, muted, blocker, blocked, stays] = await users(5);
    const post = await createPost(t, author!.token, 'crowded');
    for (const actor of [muted!, blocker!, blocked!, stays!]) await act('likePost', actor.token, post);
    const comment = 'mutation($id: ID!) { addComment(postId: $id, text: "hi") { comment { id } } }';
    await t.gqlData(comment, { id: post }, muted!.token);
    await t.gqlData(comment, { id: post }, blocked!.token);
    await follow(t, muted!.token, author!.id);
    let { groups, unread } = await notifications(author!);
    expect(groups.map((g) => [g.kind, g.actorCount])).toEqual([
      ['FOLLOW', 1],
      ['COMMENT', 2],
      ['LIKE', 4],
    ]);
    expect(unread).toBe(3);
    await t.gqlData('mutation { markNotificationsRead { id } }', {}, author!.token);

    await t.gqlData('mutation($id: ID!) { mute(userId: $id) { user { id } } }', { id: muted!.id }, author!.token);
    await t.gqlData('mutation($id: ID!) { block(userId: $id) { user { id } } }', { id: author!.id }, blocker!.token);
    await t.gqlData('mutation($id: ID!) { block(userId: $id) { user { id } } }', { id: blocked!.id }, author!.token);
    ({ groups, unread } = await notifications(author!));
    // The FOLLOW and COMMENT groups had nobody else: they went. The LIKE group keeps the one actor left, counted as one.
    expect(groups.map((g) => [g.kind, g.actorCount, ids(g)])).toEqual([['LIKE', 1, [stays!.id]]]);
    expect(unread).toBe(0);
    // A new actor after the mute's reconciliation makes it unread once, and the muted account stays out.
    const late = await t.signUp();
    await act('likePost', late.token, post);
    await act('unlikePost', muted!.token, post);
    await act('likePost', muted!.token, post);
    ({ groups, unread } = await notifications(author!));
    expect(groups.map((g) => [g.kind, g.actorCount])).toEqual([['LIKE', 2]]);
    expect(unread).toBe(1);
  });

  it('counts concurrent likes exactly, and markNotificationsRead marks what was updated until then', async () => {
    const [author, ...likers] = await users(9);
    const [p1, p2] = [await createPost(t, author!.token, 'one'), await createPost(t, author!.token, 'two')];
    await Promise.all(likers.flatMap((liker) => [act('likePost', liker.token, p1), act('likePost', liker.token, p2)]));
    let { groups, unread } = await notifications(author!);
    expect(groups.map((g) => g.actorCount)).toEqual([8, 8]);
    expect(unread).toBe(2);

    // Until a time before the groups' updates: nothing is marked.
    await t.gqlData(
      'mutation($until: DateTime) { markNotificationsRead(until: $until) { id } }',
      { until: '2020-01-01T00:00:00.000Z' },
      author!.token,
    );
    expect((await notifications(author!)).unread).toBe(2);
    const marked = await t.gqlData(
      'mutation { markNotificationsRead { id unreadNotificationCount } }',
      {},
      author!.token,
    );
    expect(marked.markNotificationsRead).toEqual({ id: author!.id, unreadNotificationCount: 0 });
    ({ groups, unread } = await notifications(author!));
    expect(groups.every((g) => g.read)).toBe(true);
    expect(unread).toBe(0);

    // A new actor makes a read group unread again, once.
    const [late] = await users(1);
    await act('likePost', late!.token, p1);
    ({ groups, unread } = await notifications(author!));
    expect(groups[0]).toMatchObject({ post: { id: p1 }, read: false, actorCount: 9 });
    expect(unread).toBe(1);
  });

  it('a notify task run twice, even at once, changes nothing more', async () => {
    const [author, liker] = await users(2);
    const post = await createPost(t, author!.token, 'twice');
    await act('likePost', liker!.token, post);
    const before = await notifications(author!);
    const { relationships } = createUseCases(t.app.stores, t.app.config, createLogger('silent'));
    const handler = new NotifyHandler(
      t.app.stores.notifications,
      new NotificationCheck(t.app.stores, relationships),
      MAX,
      () => {},
    );
    const payload: Extract<TaskPayload, { kind: 'notify' }> = {
      kind: 'notify',
      cause: { recipientId: author!.id, kind: 'LIKE', postId: post, actorId: liker!.id },
      atMs: Date.now(),
    };
    const run = () => handler.run({ payload, checkpoint: null, save: async () => true, stopping: () => false });
    await Promise.all([run(), run()]);
    await run();
    const after = await notifications(author!);
    expect(after.unread).toBe(before.unread);
    expect(after.groups.map((g) => [g.actorCount, ids(g)])).toEqual([[1, [liker!.id]]]);
  });

  it('keeps at most NOTIFICATIONS_MAX groups, the newest', async () => {
    const [author, liker] = await users(2);
    const posts: string[] = [];
    for (let i = 0; i < MAX + 2; i++) posts.push(await createPost(t, author!.token, `post ${i}`));
    for (const post of posts) {
      await act('likePost', liker!.token, post);
      await waitForQueueToDrain(t);
    }
    const { groups, unread } = await notifications(author!);
    expect(groups.length).toBeLessThanOrEqual(MAX);
    expect(groups.length).toBeGreaterThanOrEqual(MAX - MAX / 10);
    expect(groups.map((g) => g.post!.id)).toEqual(posts.slice(-groups.length).reverse());
    expect(unread).toBe(groups.length);
  });

  it('pages older groups with first/after, and returns what is newer than a cursor with last/before', async () => {
    const [author, liker] = await users(2);
    const posts: string[] = [];
    for (let i = 0; i < 5; i++) posts.push(await createPost(t, author!.token, `page ${i}`));
    for (const post of posts.slice(0, 3)) await act('likePost', liker!.token, post);
    const first = await notifications(author!, { first: 2 });
    expect(first.groups.map((g) => g.post!.id)).toEqual([posts[2], posts[1]]);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const second = await notifications(author!, { first: 2, after: first.edges.at(-1)!.cursor });
    expect(second.groups.map((g) => g.post!.id)).toEqual([posts[0]]);
    expect(second.pageInfo.hasNextPage).toBe(false);

    // After a reconnect: what came since the newest group the client has.
    for (const post of posts.slice(3)) await act('likePost', liker!.token, post);
    const newer = await notifications(author!, { last: 10, before: first.pageInfo.startCursor });
    expect(newer.groups.map((g) => g.post!.id)).toEqual([posts[4], posts[3]]);
    expect(newer.pageInfo.hasPreviousPage).toBe(false);
    const one = await notifications(author!, { last: 1, before: first.pageInfo.startCursor });
    expect(one.groups.map((g) => g.post!.id)).toEqual([posts[3]]);
    expect(one.pageInfo.hasPreviousPage).toBe(true);
  });

  it('only the user reads their notifications and unread count', async () => {
    const [owner, other] = await users(2);
    const query = 'query($id: ID!) { user(id: $id) { notifications { edges { cursor } } } }';
    expect(errorCodes(await t.gql(query, { id: owner!.id }, other!.token))).toEqual(['FORBIDDEN']);
    expect(errorCodes(await t.gql(query, { id: owner!.id }))).toEqual(['UNAUTHENTICATED']);
    expect(
      errorCodes(
        await t.gql('query($id: ID!) { user(id: $id) { unreadNotificationCount } }', { id: owner!.id }, other!.token),
      ),
    ).toEqual(['FORBIDDEN']);
    expect(errorCodes(await t.gql('mutation { markNotificationsRead { id } }', {}))).toEqual(['UNAUTHENTICATED']);
    expect(
      errorCodes(
        await t.gql(
          'query($id: ID!) { user(id: $id) { notifications(after: "nope") { edges { cursor } } } }',
          { id: owner!.id },
          owner!.token,
        ),
      ),
    ).toEqual(['BAD_USER_INPUT']);
  });

  it('finds a notification again by its id with node and nodes, for its recipient only and as the page shows it', async () => {
    const [author, liker, other] = await users(3);
    const post = await createPost(t, author!.token, `for @${other!.handle}`);
    await act('likePost', liker!.token, post);
    const comment = await t.gqlData(
      'mutation($id: ID!) { addComment(postId: $id, text: "hi") { comment { id } } }',
      { id: post },
      liker!.token,
    );
    const { groups } = await notifications(author!);
    const like = groups.find((group) => group.kind === 'LIKE')!;
    const mention = (await notifications(other!)).groups.find((group) => group.kind === 'MENTION')!;
    // The longest ids the service gives out (a mention's) are accepted as arguments.
    expect(mention.id.length).toBeLessThanOrEqual(100);

    const NODE = `query($id: ID!) { node(id: $id) { id ... on Notification { ${GROUP} } } }`;
    expect((await t.gqlData(NODE, { id: like.id }, author!.token)).node).toEqual(like);
    expect((await t.gqlData(NODE, { id: mention.id }, other!.token)).node).toMatchObject({
      id: mention.id,
      kind: 'MENTION',
    });
    // Someone else's notification, anonymous or not, names nothing.
    expect((await t.gqlData(NODE, { id: like.id }, other!.token)).node).toBeNull();
    expect((await t.gqlData(NODE, { id: like.id }, undefined)).node).toBeNull();
    for (const forged of ['ntf_', `ntf_${Buffer.from(`${author!.id}|LIKE#nope`).toString('base64url')}`, 'ntf_!!']) {
      expect((await t.gqlData(NODE, { id: forged }, author!.token)).node).toBeNull();
    }

    const NODES = 'query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }';
    const ids = [like.id, author!.id, post, comment.addComment.comment.id, 'nope', mention.id];
    const all = await t.gqlData(NODES, { ids }, author!.token);
    expect(all.nodes).toEqual([
      { __typename: 'Notification', id: like.id },
      { __typename: 'User', id: author!.id },
      { __typename: 'Post', id: post },
      { __typename: 'Comment', id: comment.addComment.comment.id },
      null,
      null,
    ]);
    const tooMany = await t.gql(NODES, { ids: Array.from({ length: 101 }, () => author!.id) }, author!.token);
    expect(errorCodes(tooMany)).toEqual(['BAD_USER_INPUT']);
    expect(tooMany.errors![0]!.extensions!.field).toBe('ids');
    // The list is non-null (the public contract's): its error reaches the root.
    expect(tooMany.data).toBeNull();

    // A group whose only actor the recipient blocks is left out of the page, and so of node.
    await t.gqlData('mutation($id: ID!) { block(userId: $id) { user { id } } }', { id: liker!.id }, author!.token);
    await waitForQueueToDrain(t);
    expect((await t.gqlData(NODE, { id: like.id }, author!.token)).node).toBeNull();
  });
});
