import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { keys, tableName } from '../../src/stores/dynamo/keys.js';
import { errorCodes, startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.stop();
});

const CREATE =
  'mutation($input: CreatePostInput!) { createPost(input: $input) { post { id text author { postCount } } } }';
const COMMENT =
  'mutation($id: ID!, $text: String!, $key: String) { addComment(postId: $id, text: $text, idempotencyKey: $key) { comment { id text } post { commentCount } } }';

describe('idempotency keys', () => {
  it('turn retried createPost calls, even concurrent ones, into one post', async () => {
    const author = await t.signUp();
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        t.gql(CREATE, { input: { text: 'once', idempotencyKey: 'draft-42' } }, author.token),
      ),
    );
    expect(results.flatMap((r) => r.errors ?? [])).toEqual([]);
    const ids = new Set(results.map((r) => r.data!.createPost.post.id));
    expect(ids.size).toBe(1);

    const again = await t.gql(CREATE, { input: { text: 'once', idempotencyKey: 'draft-42' } }, author.token);
    expect(again.data!.createPost.post).toEqual({ id: [...ids][0], text: 'once', author: { postCount: 1 } });
    const other = await t.gql(CREATE, { input: { text: 'twice', idempotencyKey: 'draft-43' } }, author.token);
    expect(other.data!.createPost.post.author.postCount).toBe(2);
    const posts = await t.gql('query($id: ID!) { user(id: $id) { posts { edges { node { text } } } } }', {
      id: author.id,
    });
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
    const results = await Promise.all(
      Array.from({ length: 5 }, () => t.gql(COMMENT, { id: postId, text: 'first!', key: 'c1' }, reader.token)),
    );
    expect(results.flatMap((r) => r.errors ?? [])).toEqual([]);
    expect(new Set(results.map((r) => r.data!.addComment.comment.id)).size).toBe(1);
    const without = await t.gql(COMMENT, { id: postId, text: 'again' }, reader.token);
    expect(without.data!.addComment.post.commentCount).toBe(2);
  });

  it('refuse a key that comes back with other input (not a retry) and change nothing', async () => {
    const author = await t.signUp();
    const first = (
      await t.gql(CREATE, { input: { text: 'the draft', tags: ['a', 'b'], idempotencyKey: 'k1' } }, author.token)
    ).data!.createPost.post;
    // The same input after normalisation, tags in any order, is a retry.
    const retry = await t.gql(
      CREATE,
      { input: { text: 'the draft', tags: ['B', 'A', 'a'], idempotencyKey: 'k1' } },
      author.token,
    );
    expect(retry.data!.createPost.post.id).toBe(first.id);
    for (const input of [
      { text: 'another draft', tags: ['a', 'b'] },
      { text: 'the draft', tags: ['b'] },
      { text: 'the draft' },
    ]) {
      const reused = await t.gql(CREATE, { input: { ...input, idempotencyKey: 'k1' } }, author.token);
      expect(errorCodes(reused)).toEqual(['BAD_USER_INPUT']);
      expect(reused.errors![0]!.extensions!.field).toBe('input.idempotencyKey');
      expect(reused.data!.createPost).toBeNull();
    }
    expect(
      (await t.gql('query($id: ID!) { user(id: $id) { postCount } }', { id: author.id })).data!.user.postCount,
    ).toBe(1);

    const other = (await t.gql(CREATE, { input: { text: 'second post' } }, author.token)).data!.createPost.post.id;
    expect((await t.gql(COMMENT, { id: first.id, text: 'a comment', key: 'c1' }, author.token)).errors).toBeUndefined();
    for (const variables of [
      { id: other, text: 'a comment', key: 'c1' },
      { id: first.id, text: 'another comment', key: 'c1' },
    ]) {
      const reused = await t.gql(COMMENT, variables, author.token);
      expect(errorCodes(reused)).toEqual(['BAD_USER_INPUT']);
      expect(reused.errors![0]!.extensions!.field).toBe('idempotencyKey');
    }
    const counts = await t.gql(
      'query($a: ID!, $b: ID!) { a: post(id: $a) { commentCount } b: post(id: $b) { commentCount } }',
      { a: first.id, b: other },
    );
    expect(counts.data).toEqual({ a: { commentCount: 1 }, b: { commentCount: 0 } });
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

describe('stored items: idempotency claims written before they carried a fingerprint', () => {
  it('count as a match: a retry with their key answers with their post', async () => {
    const author = await t.signUp();
    const first = (await t.gql(CREATE, { input: { text: 'from before' } }, author.token)).data!.createPost.post;
    const client = createDocumentClient({ endpoint: t.endpoint, tableName: tableName(t.tablePrefix) });
    try {
      const claim = keys.idempotencyClaim(author.id, 'createPost', 'old-key');
      await client.send(
        new PutCommand({
          TableName: tableName(t.tablePrefix),
          Item: { ...claim, createdId: first.id, expiresAt: Math.floor(Date.now() / 1000) + 3600 },
        }),
      );
    } finally {
      client.destroy();
    }
    const retry = await t.gql(CREATE, { input: { text: 'whatever it was', idempotencyKey: 'old-key' } }, author.token);
    expect(retry.data!.createPost.post).toEqual({ id: first.id, text: 'from before', author: { postCount: 1 } });
  });
});
