import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCodes, startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.stop();
});

const CREATE = 'mutation($input: CreatePostInput!) { createPost(input: $input) { post { id text author { postCount } } } }';
const COMMENT = 'mutation($id: ID!, $text: String!, $key: String) { addComment(postId: $id, text: $text, idempotencyKey: $key) { comment { id text } post { commentCount } } }';

describe('idempotency keys', () => {
  it('turn retried createPost calls, even concurrent ones, into one post', async () => {
    const author = await t.signUp();
    const results = await Promise.all(Array.from({ length: 10 }, () => t.gql(CREATE, { input: { text: 'once', idempotencyKey: 'draft-42' } }, author.token)));
    expect(results.flatMap((r) => r.errors ?? [])).toEqual([]);
    const ids = new Set(results.map((r) => r.data!.createPost.post.id));
    expect(ids.size).toBe(1);

    const again = await t.gql(CREATE, { input: { text: 'once', idempotencyKey: 'draft-42' } }, author.token);
    expect(again.data!.createPost.post).toEqual({ id: [...ids][0], text: 'once', author: { postCount: 1 } });
    const other = await t.gql(CREATE, { input: { text: 'twice', idempotencyKey: 'draft-43' } }, author.token);
    expect(other.data!.createPost.post.author.postCount).toBe(2);
    const posts = await t.gql('query($id: ID!) { user(id: $id) { posts { edges { node { text } } } } }', { id: author.id });
    expect(posts.data!.user.posts.edges.map((e: any) => e.node.text)).toEqual(['twice', 'once']);
  });

  it("are per user: another author's same key creates their own post", async () => {
    const [a, b] = await Promise.all([t.signUp(), t.signUp()]);
    const first = await t.gql(CREATE, { input: { text: 'a', idempotencyKey: 'same' } }, a.token);
    const second = await t.gql(CREATE, { input: { text: 'b', idempotencyKey: 'same' } }, b.token);
    expect(second.data!.createPost.post.id).not.toBe(first.data!.createPost.post.id);
    expect(second.data!.createPost.post.text).toBe('b');
  });

  it('turn retried addComment calls into one comment, counted once', async () => {
    const [author, reader] = await Promise.all([t.signUp(), t.signUp()]);
    const postId = (await t.gql(CREATE, { input: { text: 'discuss' } }, author.token)).data!.createPost.post.id;
    const results = await Promise.all(Array.from({ length: 5 }, () => t.gql(COMMENT, { id: postId, text: 'first!', key: 'c1' }, reader.token)));
    expect(results.flatMap((r) => r.errors ?? [])).toEqual([]);
    expect(new Set(results.map((r) => r.data!.addComment.comment.id)).size).toBe(1);
    const without = await t.gql(COMMENT, { id: postId, text: 'again' }, reader.token);
    expect(without.data!.addComment.post.commentCount).toBe(2);
  });

  it('refuse a malformed key and create nothing', async () => {
    const author = await t.signUp();
    for (const key of ['', 'has space', 'x'.repeat(65)]) {
      const result = await t.gql(CREATE, { input: { text: 'no', idempotencyKey: key } }, author.token);
      expect(errorCodes(result)).toEqual(['BAD_USER_INPUT']);
      expect(result.errors![0]!.extensions!.field).toBe('input.idempotencyKey');
    }
    const count = await t.gql('query($id: ID!) { user(id: $id) { postCount } }', { id: author.id });
    expect(count.data!.user.postCount).toBe(0);
  });
});
