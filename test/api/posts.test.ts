import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCodes, startTestApp, type TestApp } from '../helpers/app.js';
import { authorIds, createPost, homeIds, newestFirst } from '../helpers/posts.js';

const POST_FIELDS = 'id text tags createdAt author { id handle } commentCount';
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.stop();
});

async function postCount(userId: string): Promise<number> {
  const result = await t.gql('query($id: ID!) { user(id: $id) { postCount } }', { id: userId });
  return result.data!.user.postCount;
}

describe('createPost', () => {
  it('creates a post with normalised tags, readable by post, node, User.posts and the author’s home timeline at once', async () => {
    const author = await t.signUp();
    const result = await t.gql(
      `mutation($input: CreatePostInput!) { createPost(input: $input) { post { ${POST_FIELDS} } } }`,
      { input: { text: 'Hello, world', tags: ['Rust', ' rust ', 'Go_1'] } },
      author.token,
    );
    expect(result.errors).toBeUndefined();
    const post = result.data!.createPost.post;
    expect(post).toMatchObject({
      text: 'Hello, world',
      tags: ['rust', 'go_1'],
      author: { id: author.id, handle: author.handle },
      commentCount: 0,
    });
    expect(post.id).toMatch(/^pst_[0-9A-Z]{26}$/);
    expect(Date.parse(post.createdAt)).toBeGreaterThan(Date.now() - 60_000);

    const byId = await t.gql(
      `query($id: ID!) { post(id: $id) { ${POST_FIELDS} } node(id: $id) { __typename id ... on Post { text } } }`,
      { id: post.id },
    );
    expect(byId.data!.post).toEqual(post);
    expect(byId.data!.node).toEqual({ __typename: 'Post', id: post.id, text: 'Hello, world' });
    expect(await postCount(author.id)).toBe(1);
    expect(await authorIds(t, author.id)).toEqual([post.id]);
    // Read your own writes: no waiting for the worker.
    expect(await homeIds(t, author)).toEqual([post.id]);
  });

  it('accepts 500 characters and 10 tags', async () => {
    const author = await t.signUp();
    const tags = Array.from({ length: 10 }, (_, i) => `tag_${i}`);
    const result = await t.gql(
      'mutation($input: CreatePostInput!) { createPost(input: $input) { post { tags } } }',
      { input: { text: 'x'.repeat(500), tags } },
      author.token,
    );
    expect(result.errors).toBeUndefined();
    expect(result.data!.createPost.post.tags).toEqual(tags);
  });

  it.each([
    [{ text: '' }, 'input.text'],
    [{ text: '   ' }, 'input.text'],
    [{ text: 'x'.repeat(501) }, 'input.text'],
    [{ text: 'ok', tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, 'input.tags'],
    [{ text: 'ok', tags: ['has-dash'] }, 'input.tags'],
    [{ text: 'ok', tags: ['x'.repeat(41)] }, 'input.tags'],
    [{ text: 'ok', tags: [''] }, 'input.tags'],
  ])('refuses %j with BAD_USER_INPUT and creates nothing', async (input, field) => {
    const author = await t.signUp();
    const result = await t.gql(
      'mutation($input: CreatePostInput!) { createPost(input: $input) { post { id } } }',
      { input },
      author.token,
    );
    expect(errorCodes(result)).toEqual(['BAD_USER_INPUT']);
    expect(result.errors![0]!.extensions!.field).toBe(field);
    expect(await postCount(author.id)).toBe(0);
    expect(await authorIds(t, author.id)).toEqual([]);
  });

  it('needs a signed-in user', async () => {
    const result = await t.gql('mutation { createPost(input: { text: "hi" }) { post { id } } }');
    expect(errorCodes(result)).toEqual(['UNAUTHENTICATED']);
  });

  it('gives unique, time-ordered ids to many posts created at once', async () => {
    const author = await t.signUp();
    const ids = await Promise.all(Array.from({ length: 25 }, (_, i) => createPost(t, author.token, `post ${i}`)));
    expect(new Set(ids).size).toBe(25);
    const listed = await authorIds(t, author.id, 10);
    expect(listed).toEqual(newestFirst(ids));
    const posts = await t.gql(
      'query($id: ID!) { user(id: $id) { postCount posts(first: 100) { edges { node { createdAt } } } } }',
      { id: author.id },
    );
    const times = posts.data!.user.posts.edges.map((e: any) => Date.parse(e.node.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(posts.data!.user.postCount).toBe(25);
  });
});

describe('deletePost', () => {
  it('lets only the author delete, and removes the post everywhere it is read', async () => {
    const author = await t.signUp();
    const other = await t.signUp();
    const postId = await createPost(t, author.token, 'short-lived', ['gone']);
    const mutation = 'mutation($id: ID!) { deletePost(id: $id) { deletedPostId } }';

    expect(errorCodes(await t.gql(mutation, { id: postId }))).toEqual(['UNAUTHENTICATED']);
    expect(errorCodes(await t.gql(mutation, { id: postId }, other.token))).toEqual(['FORBIDDEN']);
    expect((await t.gql('query($id: ID!) { post(id: $id) { id } }', { id: postId })).data!.post).toEqual({
      id: postId,
    });

    const deleted = await t.gql(mutation, { id: postId }, author.token);
    expect(deleted.data!.deletePost).toEqual({ deletedPostId: postId });
    const after = await t.gql('query($id: ID!) { post(id: $id) { id } node(id: $id) { id } }', { id: postId });
    expect(after.data).toEqual({ post: null, node: null });
    expect(await postCount(author.id)).toBe(0);
    expect(await authorIds(t, author.id)).toEqual([]);
    expect(await homeIds(t, author)).toEqual([]);

    expect(errorCodes(await t.gql(mutation, { id: postId }, author.token))).toEqual(['NOT_FOUND']);
  });

  it('is NOT_FOUND for an unknown post, and BAD_USER_INPUT for an id of another kind', async () => {
    const author = await t.signUp();
    const result = await t.gql(
      'mutation { deletePost(id: "pst_01HZZZZZZZZZZZZZZZZZZZZZZZ") { deletedPostId } }',
      {},
      author.token,
    );
    expect(errorCodes(result)).toEqual(['NOT_FOUND']);
    for (const id of [author.id, 'cmt_01HZZZZZZZZZZZZZZZZZZZZZZZ', 'junk']) {
      const wrong = await t.gql('mutation($id: ID!) { deletePost(id: $id) { deletedPostId } }', { id }, author.token);
      expect({ codes: errorCodes(wrong), field: wrong.errors![0]!.extensions!.field }).toEqual({
        codes: ['BAD_USER_INPUT'],
        field: 'id',
      });
    }
  });
});

describe('the largest post', () => {
  it('is written in one transaction: ten tags, twenty mentions, COUNTER_SHARDS shards, an outbox, a retry key', async () => {
    // The most shards COUNTER_SHARDS allows; every post hot, and kept in its author's outbox once it has a follower.
    const largest = await startTestApp({ COUNTER_SHARDS: '41', HOT_AUTHOR_FOLLOWERS: '1', FANOUT_MAX_FOLLOWERS: '0' });
    try {
      const [author, follower, ...mentioned] = await Promise.all(Array.from({ length: 22 }, () => largest.signUp()));
      await largest.gqlData(
        'mutation($id: ID!) { follow(userId: $id) { user { id } } }',
        { id: author!.id },
        follower!.token,
      );
      const tags = Array.from({ length: 10 }, (_, i) => `largest${i}`);
      const create = () =>
        largest.gql(
          'mutation($input: CreatePostInput!) { createPost(input: $input) { post { id tags mentions { id } } } }',
          { input: { text: mentioned.map((user) => `@${user.handle}`).join(' '), tags, idempotencyKey: 'largest' } },
          author!.token,
        );
      const created = await create();
      expect(created.errors).toBeUndefined();
      expect(created.data!.createPost.post.tags).toEqual(tags);
      expect(created.data!.createPost.post.mentions).toHaveLength(20);
      expect((await create()).data!.createPost.post.id).toBe(created.data!.createPost.post.id);
      const deleted = await largest.gql(
        'mutation($id: ID!) { deletePost(id: $id) { deletedPostId } }',
        { id: created.data!.createPost.post.id },
        author!.token,
      );
      expect(deleted.errors).toBeUndefined();
    } finally {
      await largest.stop();
    }
  });
});

describe('comments', () => {
  const ADD =
    'mutation($postId: ID!, $text: String!) { addComment(postId: $postId, text: $text) { comment { id text author { id } createdAt } post { id commentCount } } }';
  const LIST =
    'query($id: ID!, $first: Int, $after: String) { post(id: $id) { commentCount comments(first: $first, after: $after) { edges { cursor node { id text author { handle } } } pageInfo { hasNextPage endCursor } } } }';

  it('adds comments, lists them oldest first in keyset pages, and counts them exactly', async () => {
    const author = await t.signUp();
    const commenter = await t.signUp();
    const postId = await createPost(t, author.token, 'discuss');
    const first = await t.gql(ADD, { postId, text: 'first!' }, commenter.token);
    expect(first.errors).toBeUndefined();
    expect(first.data!.addComment.comment).toMatchObject({ text: 'first!', author: { id: commenter.id } });
    expect(first.data!.addComment.post).toEqual({ id: postId, commentCount: 1 });

    await Promise.all(Array.from({ length: 9 }, (_, i) => t.gql(ADD, { postId, text: `c${i}` }, author.token)));

    const texts: string[] = [];
    const ids: string[] = [];
    let after: string | null = null;
    for (;;) {
      const page: any = await t.gql(LIST, { id: postId, first: 3, after });
      expect(page.data.post.commentCount).toBe(10);
      const { edges, pageInfo } = page.data.post.comments;
      texts.push(...edges.map((e: any) => e.node.text));
      ids.push(...edges.map((e: any) => e.node.id));
      if (!pageInfo.hasNextPage) break;
      after = pageInfo.endCursor;
    }
    expect(texts).toHaveLength(10);
    expect(texts[0]).toBe('first!');
    expect(ids).toEqual([...ids].sort());

    const node = await t.gql('query($id: ID!) { node(id: $id) { __typename ... on Comment { text author { id } } } }', {
      id: ids[0],
    });
    expect(node.data!.node).toEqual({ __typename: 'Comment', text: 'first!', author: { id: commenter.id } });
  });

  it('refuses anonymous users, bad text and unknown posts, and counts nothing', async () => {
    const author = await t.signUp();
    const postId = await createPost(t, author.token, 'quiet');
    expect(errorCodes(await t.gql(ADD, { postId, text: 'hi' }))).toEqual(['UNAUTHENTICATED']);
    for (const text of ['', '  ', 'x'.repeat(501)]) {
      const result = await t.gql(ADD, { postId, text }, author.token);
      expect(errorCodes(result)).toEqual(['BAD_USER_INPUT']);
      expect(result.errors![0]!.extensions!.field).toBe('text');
    }
    expect(
      errorCodes(await t.gql(ADD, { postId: 'pst_01HZZZZZZZZZZZZZZZZZZZZZZZ', text: 'hi' }, author.token)),
    ).toEqual(['NOT_FOUND']);
    const list = await t.gql(LIST, { id: postId });
    expect(list.data!.post.commentCount).toBe(0);
    expect(list.data!.post.comments.edges).toEqual([]);
  });

  it('cannot comment on a deleted post', async () => {
    const author = await t.signUp();
    const postId = await createPost(t, author.token, 'soon gone');
    await t.gql('mutation($id: ID!) { deletePost(id: $id) { deletedPostId } }', { id: postId }, author.token);
    expect(errorCodes(await t.gql(ADD, { postId, text: 'late' }, author.token))).toEqual(['NOT_FOUND']);
  });
});

describe('page arguments', () => {
  it.each([0, 101, -1])('refuses first: %i', async (first) => {
    const author = await t.signUp();
    const result = await t.gql(
      'query($id: ID!, $first: Int) { user(id: $id) { posts(first: $first) { edges { cursor } } } }',
      { id: author.id, first },
    );
    expect(errorCodes(result)).toEqual(['BAD_USER_INPUT']);
    expect(result.errors![0]!.extensions!.field).toBe('first');
  });

  it('refuses a cursor it did not give out', async () => {
    const result = await t.gql('{ publicTimeline(after: "bm90LWEtY3Vyc29y") { edges { cursor } } }');
    expect(errorCodes(result)).toEqual(['BAD_USER_INPUT']);
    expect(result.errors![0]!.extensions!.field).toBe('after');
  });
});
