import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapConcurrently } from '../../src/lib/collections.js';
import { keys, tableName } from '../../src/stores/dynamo/keys.js';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { errorCodes, startTestApp, type TestApp } from '../helpers/app.js';

const REACT = 'mutation($id: ID!, $kind: String!) { react(postId: $id, kind: $kind) { post { id } } }';
const COUNTS = 'id likeCount viewCount commentCount viewerHasLiked reactionCounts { kind count }';
let t: TestApp;

beforeAll(async () => {
  // A low threshold makes any author with a follower "hot", so their posts get sharded counters.
  t = await startTestApp({ HOT_AUTHOR_FOLLOWERS: '1', COUNTER_SHARDS: '4' });
});
afterAll(async () => {
  await t.stop();
});

async function createPost(token: string, text = 'hello'): Promise<string> {
  const result = await t.gql(
    'mutation($text: String!) { createPost(input: { text: $text }) { post { id } } }',
    { text },
    token,
  );
  if (!result.data?.createPost) throw new Error(JSON.stringify(result.errors));
  return result.data.createPost.post.id;
}

async function counts(postId: string, token?: string) {
  const result = await t.gql(`query($id: ID!) { post(id: $id) { ${COUNTS} } }`, { id: postId }, token);
  return result.data!.post;
}

/** The fans sign up a few at a time: 200 password hashes at once can outlast an operation's deadline on two loaded cores. */
async function signUpMany(n: number) {
  return mapConcurrently(Array.from({ length: n }), 16, () => t.signUp());
}

describe('likes', () => {
  // 200 sign-ups and 200 four-item like transactions on one post: slow on a loaded two-core machine.
  it('counts 200 distinct users liking one post at once exactly 200 times', { timeout: 120_000 }, async () => {
    const author = await t.signUp();
    const postId = await createPost(author.token);
    const fans = await signUpMany(200);
    const results = await Promise.all(
      fans.map((fan) =>
        t.gql('mutation($id: ID!) { likePost(postId: $id) { post { id } } }', { id: postId }, fan.token),
      ),
    );
    expect(results.flatMap((r) => r.errors ?? [])).toEqual([]);
    expect((await counts(postId)).likeCount).toBe(200);
  });

  it('counts one user liking a post 50 times at once once', async () => {
    const author = await t.signUp();
    const postId = await createPost(author.token);
    const fan = await t.signUp();
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        t.gql(
          'mutation($id: ID!) { likePost(postId: $id) { post { likeCount viewerHasLiked } } }',
          { id: postId },
          fan.token,
        ),
      ),
    );
    expect(results.flatMap((r) => r.errors ?? [])).toEqual([]);
    expect(await counts(postId, fan.token)).toMatchObject({ likeCount: 1, viewerHasLiked: true });
    expect(await counts(postId)).toMatchObject({ likeCount: 1, viewerHasLiked: false });
  });

  it('ends equal to the like records after interleaved likes and unlikes from many users', async () => {
    const author = await t.signUp();
    const postId = await createPost(author.token);
    const fans = await signUpMany(30);
    const calls = fans.flatMap((fan, i) =>
      Array.from({ length: 6 }, (_, k) => ((k + i) % 2 === 0 ? 'likePost' : 'unlikePost')).map((mutation) =>
        t.gql(`mutation($id: ID!) { ${mutation}(postId: $id) { post { id } } }`, { id: postId }, fan.token),
      ),
    );
    const results = await Promise.all(calls);
    expect(results.flatMap((r) => r.errors ?? [])).toEqual([]);
    const liked = await Promise.all(
      fans.map(async (fan) => (await counts(postId, fan.token)).viewerHasLiked as boolean),
    );
    expect((await counts(postId)).likeCount).toBe(liked.filter(Boolean).length);
  });

  it('is idempotent both ways and shows the change in the payload', async () => {
    const author = await t.signUp();
    const postId = await createPost(author.token);
    const like = () =>
      t.gql(
        `mutation($id: ID!) { likePost(postId: $id) { post { likeCount viewerHasLiked } } }`,
        { id: postId },
        author.token,
      );
    const unlike = () =>
      t.gql(
        `mutation($id: ID!) { unlikePost(postId: $id) { post { likeCount viewerHasLiked } } }`,
        { id: postId },
        author.token,
      );
    expect((await like()).data!.likePost.post).toEqual({ likeCount: 1, viewerHasLiked: true });
    expect((await like()).data!.likePost.post).toEqual({ likeCount: 1, viewerHasLiked: true });
    expect((await unlike()).data!.unlikePost.post).toEqual({ likeCount: 0, viewerHasLiked: false });
    expect((await unlike()).data!.unlikePost.post).toEqual({ likeCount: 0, viewerHasLiked: false });
  });

  it('needs a signed-in user and an existing post', async () => {
    const author = await t.signUp();
    const postId = await createPost(author.token);
    expect(
      errorCodes(await t.gql('mutation($id: ID!) { likePost(postId: $id) { post { id } } }', { id: postId })),
    ).toEqual(['UNAUTHENTICATED']);
    const missing = await t.gql(
      'mutation { likePost(postId: "pst_00000000000000000000000000") { post { id } } }',
      {},
      author.token,
    );
    expect(errorCodes(missing)).toEqual(['NOT_FOUND']);
    expect((await counts(postId)).likeCount).toBe(0);
  });

  it('refuses to like a deleted post', async () => {
    const author = await t.signUp();
    const postId = await createPost(author.token);
    await t.gql('mutation($id: ID!) { deletePost(id: $id) { deletedPostId } }', { id: postId }, author.token);
    const result = await t.gql(
      'mutation($id: ID!) { likePost(postId: $id) { post { id } } }',
      { id: postId },
      author.token,
    );
    expect(errorCodes(result)).toEqual(['NOT_FOUND']);
  });
});

describe('unique views', () => {
  it('counts each signed-in user once per post however often they view it', async () => {
    const author = await t.signUp();
    const postId = await createPost(author.token);
    const viewers = await signUpMany(5);
    await Promise.all(
      viewers.flatMap((viewer) =>
        Array.from({ length: 4 }, () =>
          t.gql('mutation($id: ID!) { viewPost(postId: $id) { post { id } } }', { id: postId }, viewer.token),
        ),
      ),
    );
    expect((await counts(postId)).viewCount).toBe(5);
    const anonymous = await t.gql('mutation($id: ID!) { viewPost(postId: $id) { post { id } } }', { id: postId });
    expect(errorCodes(anonymous)).toEqual(['UNAUTHENTICATED']);
    expect((await counts(postId)).viewCount).toBe(5);
  });
});

describe('reactions', () => {
  it('counts each user once per kind and lists kinds largest first', async () => {
    const author = await t.signUp();
    const postId = await createPost(author.token);
    const users = await signUpMany(4);
    const react = (token: string, kind: string) => t.gql(REACT, { id: postId, kind }, token);
    await Promise.all([
      ...users.map((u) => react(u.token, 'love')),
      ...users.map((u) => react(u.token, 'love')),
      ...users.slice(0, 2).map((u) => react(u.token, 'laugh')),
      react(users[0]!.token, 'clap'),
    ]);
    expect((await counts(postId)).reactionCounts).toEqual([
      { kind: 'love', count: 4 },
      { kind: 'laugh', count: 2 },
      { kind: 'clap', count: 1 },
    ]);
  });

  it('accepts only the configured kinds (REACTION_KINDS), and a refused kind changes nothing', async () => {
    const author = await t.signUp();
    const postId = await createPost(author.token);
    for (const kind of [
      '',
      'UPPER',
      'has-dash',
      'x'.repeat(21),
      'heart',
      'brand_new_kind',
      '__proto__',
      'constructor',
    ]) {
      const result = await t.gql(REACT, { id: postId, kind }, author.token);
      expect(errorCodes(result)).toEqual(['BAD_USER_INPUT']);
      expect(result.errors![0]!.extensions!.field).toBe('kind');
      expect(result.errors![0]!.message).toContain('like, love, laugh, wow, sad, clap');
    }
    expect((await counts(postId)).reactionCounts).toEqual([]);
    await t.gql(REACT, { id: postId, kind: 'wow' }, author.token);
    expect((await counts(postId)).reactionCounts).toEqual([{ kind: 'wow', count: 1 }]);
  });

  it('counts a configured kind that is also a member of every plain object (constructor) exactly', async () => {
    const own = await startTestApp({ REACTION_KINDS: 'like,constructor' });
    try {
      const [author, ...fans] = await Promise.all(Array.from({ length: 3 }, () => own.signUp()));
      const created = await own.gql(
        'mutation { createPost(input: { text: "hi" }) { post { id } } }',
        {},
        author!.token,
      );
      const postId = created.data!.createPost.post.id;
      for (const fan of fans) await own.gql(REACT, { id: postId, kind: 'constructor' }, fan.token);
      await own.gql(REACT, { id: postId, kind: 'like' }, author!.token);
      const read = await own.gql('query($id: ID!) { post(id: $id) { reactionCounts { kind count } } }', { id: postId });
      expect(read.data!.post.reactionCounts).toEqual([
        { kind: 'constructor', count: 2 },
        { kind: 'like', count: 1 },
      ]);
    } finally {
      await own.stop();
    }
  });
});

describe('social counts', () => {
  it('stay exact through posts, deletes, comments, follows and unfollows', async () => {
    const [a, b] = await signUpMany(2);
    const first = await createPost(a!.token);
    await createPost(a!.token);
    await t.gql('mutation($id: ID!) { deletePost(id: $id) { deletedPostId } }', { id: first }, a!.token);
    const second = await createPost(a!.token, 'kept');
    await t.gql(
      'mutation($id: ID!) { addComment(postId: $id, text: "one") { comment { id } } }',
      { id: second },
      b!.token,
    );
    await t.gql(
      'mutation($id: ID!) { addComment(postId: $id, text: "two") { comment { id } } }',
      { id: second },
      a!.token,
    );
    await t.gql('mutation($id: ID!) { follow(userId: $id) { user { id } } }', { id: a!.id }, b!.token);
    await t.gql('mutation($id: ID!) { follow(userId: $id) { user { id } } }', { id: b!.id }, a!.token);
    await t.gql('mutation($id: ID!) { unfollow(userId: $id) { user { id } } }', { id: b!.id }, a!.token);

    const result = await t.gql(
      'query($a: ID!, $b: ID!, $p: ID!) { a: user(id: $a) { postCount followerCount followingCount } b: user(id: $b) { postCount followerCount followingCount } post(id: $p) { commentCount } }',
      { a: a!.id, b: b!.id, p: second },
    );
    expect(result.data).toEqual({
      a: { postCount: 2, followerCount: 1, followingCount: 0 },
      b: { postCount: 0, followerCount: 0, followingCount: 1 },
      post: { commentCount: 2 },
    });
  });
});

describe('stored items: reaction records and counter shards', () => {
  it('a refused reaction kind writes no item and no key: the post keeps its item, with its counts, and its fan-out record', async () => {
    const author = await t.signUp();
    const postId = await createPost(author.token);
    for (const kind of ['UPPER', 'brand_new_kind', '__proto__', 'constructor']) {
      expect(errorCodes(await t.gql(REACT, { id: postId, kind }, author.token))).toEqual(['BAD_USER_INPUT']);
    }
    const client = createDocumentClient({ endpoint: t.endpoint, tableName: tableName(t.tablePrefix) });
    const partition = await client.send(
      new QueryCommand({
        TableName: tableName(t.tablePrefix),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.post(postId).pk },
      }),
    );
    client.destroy();
    // A post with one shard keeps its counts on its own item.
    expect(partition.Items!.map((item) => item.sk).sort()).toEqual(['FANOUT', 'POST']);
    expect(partition.Items!.find((item) => item.sk === 'POST')!).toMatchObject({ likeCount: 0, reactions: {} });
  });

  it("spreads the counter writes of a popular author's post over several shards and sums them on read", async () => {
    const author = await t.signUp();
    const fan = await t.signUp();
    await t.gql('mutation($id: ID!) { follow(userId: $id) { user { id } } }', { id: author.id }, fan.token);
    const postId = await createPost(author.token);
    const likers = await signUpMany(60);
    await Promise.all(
      likers.map((u) => t.gql('mutation($id: ID!) { likePost(postId: $id) { post { id } } }', { id: postId }, u.token)),
    );
    expect((await counts(postId)).likeCount).toBe(60);

    const client = createDocumentClient({ endpoint: t.endpoint, tableName: tableName(t.tablePrefix) });
    const shardPrefix = keys.counterShard(postId, 0).sk.replace(/\d+$/, '');
    const shards = await client.send(
      new QueryCommand({
        TableName: tableName(t.tablePrefix),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.counterShard(postId, 0).pk, ':prefix': shardPrefix },
      }),
    );
    client.destroy();
    const used = (shards.Items ?? []).filter((shard) => Number(shard.likeCount) > 0);
    expect(shards.Items).toHaveLength(4);
    expect(used.length).toBeGreaterThan(1);
  });
});
