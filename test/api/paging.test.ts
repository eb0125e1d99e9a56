import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp, uniqueHandle } from '../helpers/app.js';
import { createPost } from '../helpers/posts.js';
import { waitForQueueToDrain } from '../helpers/queue.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.stop();
});

const PAGE = 'edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }';

interface Connection {
  edges: { cursor: string; node: { id: string } }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}

type Read = (args: string) => Promise<{ connection: Connection | null; errors: [unknown, unknown][] }>;

/** Each post list that pages both ways: how to read it with given paging arguments, after writing five posts to it. */
async function lists(): Promise<[string, Read, string[]][]> {
  const tag = uniqueHandle('tag');
  const author = await t.signUp();
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push(await createPost(t, author.token, `post ${i}`, [tag]));
  const read =
    (query: (args: string) => string, pick: (data: Record<string, any>) => Connection): Read =>
    async (args) => {
      const result = await t.gql(query(args), { id: author.id, tag });
      return {
        connection: result.errors ? null : pick(result.data!),
        errors: (result.errors ?? []).map((error) => [error.extensions?.code, error.extensions?.field]),
      };
    };
  return [
    [
      'User.posts',
      read(
        (args) => `query($id: ID!) { user(id: $id) { posts(${args}) { ${PAGE} } } }`,
        (data) => data.user.posts,
      ),
      ids,
    ],
    [
      'Query.tagTimeline',
      read(
        (args) => `query($tag: String!) { tagTimeline(tag: $tag, ${args}) { ${PAGE} } }`,
        (data) => data.tagTimeline,
      ),
      ids,
    ],
    // The public timeline holds every post: this file writes none after these.
    [
      'Query.publicTimeline',
      read(
        (args) => `query { publicTimeline(${args}) { ${PAGE} } }`,
        (data) => data.publicTimeline,
      ),
      ids,
    ],
  ];
}

describe('a post list paged backwards', () => {
  it('returns the posts newer than a cursor, newest first, with page info true to the Relay spec', async () => {
    for (const [name, read, ids] of await lists()) {
      const ofPage = (connection: Connection | null) => connection!.edges.map((edge) => edge.node.id);
      const forward = (await read('first: 10')).connection!;
      expect(ofPage(forward), name).toEqual([...ids].reverse());
      // The client has posts 0 and 1; it catches up two at a time, from the newest it has.
      const newest = forward.edges.find((edge) => edge.node.id === ids[1])!.cursor;
      const first = (await read(`last: 2, before: "${newest}"`)).connection!;
      expect(ofPage(first), name).toEqual([ids[3], ids[2]]);
      expect(first.pageInfo, name).toMatchObject({
        hasPreviousPage: true,
        hasNextPage: false,
        startCursor: first.edges[0]!.cursor,
        endCursor: first.edges[1]!.cursor,
      });
      const second = (await read(`last: 2, before: "${first.pageInfo.startCursor}"`)).connection!;
      expect(ofPage(second), name).toEqual([ids[4]]);
      expect(second.pageInfo.hasPreviousPage, name).toBe(false);
      const none = (await read(`last: 2, before: "${second.pageInfo.startCursor}"`)).connection!;
      expect(none, name).toEqual({
        edges: [],
        pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
      });
      // Forwards again from the older end: the spec's hasPreviousPage is false when paging forwards.
      const older = (await read(`first: 2, after: "${newest}"`)).connection!;
      expect(ofPage(older), name).toEqual([ids[0]]);
      expect(older.pageInfo, name).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
    }
  });

  it('refuses last without before, both directions at once, and a last past 100, on the field alone', async () => {
    for (const [name, read] of await lists()) {
      const { edges } = (await read('first: 1')).connection!;
      const cursor = edges[0]!.cursor;
      expect((await read('last: 2')).errors, name).toEqual([['BAD_USER_INPUT', 'before']]);
      expect((await read(`first: 2, before: "${cursor}"`)).errors, name).toEqual([['BAD_USER_INPUT', 'first']]);
      expect((await read(`after: "${cursor}", last: 2, before: "${cursor}"`)).errors, name).toEqual([
        ['BAD_USER_INPUT', 'after'],
      ]);
      expect((await read(`last: 101, before: "${cursor}"`)).errors, name).toEqual([['BAD_USER_INPUT', 'last']]);
    }
  });

  it("shows nothing newer of an author in a block with the viewer, and a repost at the repost's place", async () => {
    const author = await t.signUp();
    const reposter = await t.signUp();
    const old = await createPost(t, author.token, 'old');
    const mine = await createPost(t, reposter.token, 'mine');
    const repost = await t.gql(
      'mutation($id: ID!) { repost(postId: $id) { post { id } } }',
      { id: old },
      reposter.token,
    );
    expect(repost.errors).toBeUndefined();
    const posts = (args: string, token?: string) =>
      t.gql<{ user: { posts: Connection } }>(
        `query($id: ID!) { user(id: $id) { posts(${args}) { ${PAGE} } } }`,
        { id: reposter.id },
        token,
      );
    const all = (await posts('first: 10')).data!.user.posts;
    expect(all.edges.map((edge) => edge.node.id)).toEqual([old, mine]);
    const newer = (await posts(`last: 5, before: "${all.edges[1]!.cursor}"`)).data!.user.posts;
    expect(newer.edges.map((edge) => edge.node.id)).toEqual([old]);

    const blocked = await t.gql(
      'mutation($id: ID!) { block(userId: $id) { user { id } } }',
      { id: author.id },
      reposter.token,
    );
    expect(blocked.errors).toBeUndefined();
    const seenByAuthor = (await posts(`last: 5, before: "${all.edges[1]!.cursor}"`, author.token)).data!.user.posts;
    expect(seenByAuthor.edges).toEqual([]);
  });

  it('pages followers and following backwards from a cursor, with the counts beside', async () => {
    const user = await t.signUp();
    const fans: { id: string; token: string }[] = [];
    for (let i = 0; i < 4; i++) fans.push(await t.signUp());
    for (const fan of fans)
      expect(
        (await t.gql('mutation($id: ID!) { follow(userId: $id) { user { id } } }', { id: user.id }, fan.token)).errors,
      ).toBeUndefined();
    const read = async (field: 'followers' | 'following', id: string, args: string) => {
      const result = await t.gql<{ user: Record<string, Connection & { totalCount: number }> }>(
        `query($id: ID!) { user(id: $id) { ${field}(${args}) { totalCount ${PAGE} } } }`,
        {
          id,
        },
      );
      return result.errors
        ? result.errors.map((error) => [error.extensions?.code, error.extensions?.field])
        : result.data!.user[field]!;
    };
    const all = (await read('followers', user.id, 'first: 10')) as Connection;
    expect(all.edges.map((edge) => edge.node.id)).toEqual(fans.map((fan) => fan.id).reverse());
    const newer = (await read('followers', user.id, `last: 2, before: "${all.edges[3]!.cursor}"`)) as Connection & {
      totalCount: number;
    };
    expect(newer.edges.map((edge) => edge.node.id)).toEqual([fans[2]!.id, fans[1]!.id]);
    expect(newer.pageInfo).toMatchObject({
      hasPreviousPage: true,
      hasNextPage: false,
      startCursor: newer.edges[0]!.cursor,
    });
    expect(newer.totalCount).toBe(4);
    const rest = (await read('followers', user.id, `last: 2, before: "${newer.pageInfo.startCursor}"`)) as Connection;
    expect(rest.edges.map((edge) => edge.node.id)).toEqual([fans[3]!.id]);
    expect(rest.pageInfo.hasPreviousPage).toBe(false);

    const following = (await read('following', fans[0]!.id, 'first: 10')) as Connection;
    expect(
      (await read('following', fans[0]!.id, `last: 5, before: "${following.edges[0]!.cursor}"`)) as Connection,
    ).toMatchObject({
      edges: [],
      pageInfo: { hasPreviousPage: false },
    });
    expect(await read('following', fans[0]!.id, 'last: 2')).toEqual([['BAD_USER_INPUT', 'before']]);
    expect(await read('followers', user.id, `first: 2, before: "${all.edges[0]!.cursor}"`)).toEqual([
      ['BAD_USER_INPUT', 'first'],
    ]);
  });

  it("pages a post's likers and reposters and the viewer's blocks and mutes backwards", async () => {
    const owner = await t.signUp();
    // Blocks hide accounts from a post's lists too: another account blocks and mutes.
    const blocker = await t.signUp();
    const postId = await createPost(t, owner.token, 'liked');
    const others: { id: string; token: string }[] = [];
    for (let i = 0; i < 3; i++) others.push(await t.signUp());
    const act = async (mutation: string, variables: Record<string, unknown>, token: string) =>
      expect((await t.gql(mutation, variables, token)).errors).toBeUndefined();
    for (const other of others) {
      await act('mutation($id: ID!) { likePost(postId: $id) { post { id } } }', { id: postId }, other.token);
      await act('mutation($id: ID!) { repost(postId: $id) { post { id } } }', { id: postId }, other.token);
      await act('mutation($id: ID!) { block(userId: $id) { user { id } } }', { id: other.id }, blocker.token);
      await act('mutation($id: ID!) { mute(userId: $id) { user { id } } }', { id: other.id }, blocker.token);
    }
    const lists: [string, (args: string) => string, (data: Record<string, any>) => Connection][] = [
      ['likedBy', (args) => `{ post(id: "${postId}") { likedBy(${args}) { ${PAGE} } } }`, (data) => data.post.likedBy],
      [
        'repostedBy',
        (args) => `{ post(id: "${postId}") { repostedBy(${args}) { ${PAGE} } } }`,
        (data) => data.post.repostedBy,
      ],
      [
        'blockedUsers',
        (args) => `{ viewer { blockedUsers(${args}) { ${PAGE} } } }`,
        (data) => data.viewer.blockedUsers,
      ],
      ['mutedUsers', (args) => `{ viewer { mutedUsers(${args}) { ${PAGE} } } }`, (data) => data.viewer.mutedUsers],
    ];
    for (const [name, query, pick] of lists) {
      const read = async (args: string) => {
        const result = await t.gql(query(args), {}, blocker.token);
        expect(result.errors, name).toBeUndefined();
        return pick(result.data!);
      };
      const all = await read('first: 10');
      expect(
        all.edges.map((edge) => edge.node.id),
        name,
      ).toEqual(others.map((other) => other.id).reverse());
      const newer = await read(`last: 1, before: "${all.edges[2]!.cursor}"`);
      expect(
        newer.edges.map((edge) => edge.node.id),
        name,
      ).toEqual([others[1]!.id]);
      expect(newer.pageInfo, name).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
      const newest = await read(`last: 5, before: "${newer.pageInfo.startCursor}"`);
      expect(
        newest.edges.map((edge) => edge.node.id),
        name,
      ).toEqual([others[2]!.id]);
      expect(newest.pageInfo.hasPreviousPage, name).toBe(false);
    }
  });

  it('answers the same mistake with the same code and field on comments and notifications as on the other lists', async () => {
    const author = await t.signUp();
    const fan = await t.signUp();
    const post = await createPost(t, author.token, 'talk');
    for (const text of ['one', 'two'])
      await t.gql(
        'mutation($post: ID!, $text: String!) { addComment(postId: $post, text: $text) { comment { id } } }',
        { post, text },
        fan.token,
      );
    await waitForQueueToDrain(t);
    const read = async (list: 'comments' | 'notifications', args: string) => {
      const query =
        list === 'comments'
          ? `query($id: ID!) { post(id: $id) { comments(${args}) { edges { cursor } } } }`
          : `query { viewer { notifications(${args}) { edges { cursor } } } }`;
      const result = await t.gql(query, { id: post }, author.token);
      const connection = result.data && (list === 'comments' ? result.data.post : result.data.viewer)?.[list];
      return {
        cursors: connection ? (connection.edges as { cursor: string }[]).map((edge) => edge.cursor) : null,
        errors: (result.errors ?? []).map((error) => [error.extensions?.code, error.extensions?.field]),
      };
    };
    for (const list of ['comments', 'notifications'] as const) {
      const [cursor] = (await read(list, 'first: 1')).cursors!;
      expect((await read(list, 'first: 1, last: 1')).errors, list).toEqual([['BAD_USER_INPUT', 'first']]);
      expect((await read(list, `after: "${cursor}", before: "${cursor}"`)).errors, list).toEqual([
        ['BAD_USER_INPUT', 'after'],
      ]);
      // `before` alone pages backwards, 20 at a time, as on the timelines.
      expect((await read(list, `before: "${cursor}"`)).errors, list).toEqual([]);
    }
    // A list kept newest first needs a cursor to read newer entries; comments are oldest first: `last` alone is the newest.
    expect((await read('notifications', 'last: 1')).errors).toEqual([['BAD_USER_INPUT', 'before']]);
    expect((await read('comments', 'last: 1')).cursors).toHaveLength(1);
  });
});
