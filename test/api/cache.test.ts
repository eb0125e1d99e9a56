import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type GraphQLResponse, type TestApp } from '../helpers/app.js';
import { createPost } from '../helpers/posts.js';
import { type RedisServer, startRedis } from '../helpers/redis.js';

interface CacheCost {
  cache: { hits: number; misses: number };
  dynamodb: { requests: number };
}

const READ_POST = 'query($id: ID!) { post(id: $id) { text likeCount author { handle displayName } } }';

interface ReadPost {
  post: { text: string; likeCount: number; author: { handle: string; displayName: string | null } } | null;
}

const costOf = (response: GraphQLResponse) => response.extensions!.cost as CacheCost;

async function like(t: TestApp, token: string, postId: string) {
  const liked = await t.gql<{ likePost: { post: { likeCount: number } } }>(
    'mutation($id: ID!) { likePost(postId: $id) { post { likeCount } } }',
    { id: postId },
    token,
  );
  expect(liked.errors).toBeUndefined();
}

describe('cache in memory (the default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.stop();
  });

  it("serves a hot post's item, its author's profile and its counters to many viewers from one DynamoDB read", async () => {
    const author = await t.signUp();
    const postId = await createPost(t, author.token, 'going viral');
    const viewers = await Promise.all(Array.from({ length: 10 }, () => t.signUp()));
    const first = await t.gql<ReadPost>(READ_POST, { id: postId }, viewers[0]!.token);
    expect(first.data!.post!.text).toBe('going viral');
    // Post, author, the post's counts, and the viewer's own profile.
    expect(costOf(first).cache).toEqual({ hits: 0, misses: 4 });
    for (const viewer of viewers.slice(1)) {
      const read = await t.gql<ReadPost>(READ_POST, { id: postId }, viewer.token);
      expect(read.data!.post).toEqual(first.data!.post);
      // Post, author and counts from the cache; only each viewer's own profile is read, once.
      expect(costOf(read).cache).toEqual({ hits: 3, misses: 1 });
      expect(costOf(read).dynamodb.requests).toBeLessThan(costOf(first).dynamodb.requests);
    }
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(/cache_lookups_total\{kind="post",result="hit"\} [1-9]/);
  });

  it("shows a like to the post's author at the next read, though the counts were cached, and keeps the rest cached", async () => {
    const author = await t.signUp();
    const fan = await t.signUp();
    const postId = await createPost(t, author.token, 'like me');
    expect((await t.gql<ReadPost>(READ_POST, { id: postId }, author.token)).data!.post!.likeCount).toBe(0);
    const cached = await t.gql<ReadPost>(READ_POST, { id: postId }, author.token);
    expect(costOf(cached).cache.misses).toBe(0);
    await like(t, fan.token, postId);
    const after = await t.gql<ReadPost>(READ_POST, { id: postId }, author.token);
    expect(after.data!.post!.likeCount).toBe(1);
    // The like evicted the post's counts only: its other fields and its author (here the viewer too) stay cached.
    expect(costOf(after).cache).toEqual({ hits: 2, misses: 1 });
  });

  it("serves a profile's follow counts from the cache, and shows a follow and an unfollow at the next read", async () => {
    const [author, viewer, fan] = await Promise.all([t.signUp(), t.signUp(), t.signUp()]);
    const PROFILE = 'query($id: ID!) { user(id: $id) { followerCount followingCount viewerFollows } }';
    const read = () =>
      t.gql<{ user: { followerCount: number; followingCount: number; viewerFollows: boolean } }>(
        PROFILE,
        { id: author.id },
        viewer.token,
      );
    expect((await read()).data!.user).toEqual({ followerCount: 0, followingCount: 0, viewerFollows: false });
    const cached = await read();
    // The viewer's profile (the account check), the author's, and the author's follow counts (cached apart): all from
    // the cache. The flag is read strongly consistent in the graph, never cached.
    expect(costOf(cached).cache).toEqual({ hits: 3, misses: 0 });
    expect(costOf(cached).dynamodb.requests).toBe(0);
    const follow = (token: string, verb: 'follow' | 'unfollow') =>
      t
        .gql(`mutation($id: ID!) { ${verb}(userId: $id) { user { id } } }`, { id: author.id }, token)
        .then((answer) => expect(answer.errors).toBeUndefined());
    await follow(fan.token, 'follow');
    const followed = await read();
    expect(followed.data!.user).toEqual({ followerCount: 1, followingCount: 0, viewerFollows: false });
    // The follow evicted the author's counts only: the profile itself stays cached.
    expect(costOf(followed).cache).toEqual({ hits: 2, misses: 1 });
    await follow(viewer.token, 'follow');
    expect((await read()).data!.user).toEqual({ followerCount: 2, followingCount: 0, viewerFollows: true });
    await follow(fan.token, 'unfollow');
    expect((await read()).data!.user).toEqual({ followerCount: 1, followingCount: 0, viewerFollows: true });
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(/cache_lookups_total\{kind="counter",result="hit"\} [1-9]/);
  });

  it('shows a profile edit and a deleted post at the next read', async () => {
    const author = await t.signUp();
    const viewer = await t.signUp();
    const postId = await createPost(t, author.token, 'soon gone');
    await t.gql<ReadPost>(READ_POST, { id: postId }, viewer.token);
    const edited = await t.gql(
      'mutation { updateProfile(input: { displayName: "Renamed" }) { displayName } }',
      {},
      author.token,
    );
    expect(edited.errors).toBeUndefined();
    expect((await t.gql<ReadPost>(READ_POST, { id: postId }, viewer.token)).data!.post!.author.displayName).toBe(
      'Renamed',
    );
    const deleted = await t.gql(
      'mutation($id: ID!) { deletePost(id: $id) { deletedPostId } }',
      { id: postId },
      author.token,
    );
    expect(deleted.errors).toBeUndefined();
    expect((await t.gql<ReadPost>(READ_POST, { id: postId }, viewer.token)).data!.post).toBeNull();
  });
});

describe('cache in Redis, shared by two API instances', () => {
  let redis: RedisServer;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    redis = await startRedis();
    a = await startTestApp({ REDIS_URL: redis.url });
    b = await startTestApp({ REDIS_URL: redis.url, TABLE_PREFIX: a.tablePrefix, WORKER_ENABLED: 'false' });
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
    await redis?.stop();
  });

  it("fills the cache once for both instances, and a like through one is in the author's next read through the other", async () => {
    const author = await a.signUp();
    const fan = await a.signUp();
    const postId = await createPost(a, author.token, 'shared');
    const first = await a.gql<ReadPost>(READ_POST, { id: postId }, author.token);
    expect(first.data!.post!.likeCount).toBe(0);
    // Post, counter shard and the author, who is the viewer too.
    expect(costOf(first).cache).toEqual({ hits: 0, misses: 3 });
    // Filled through A, read through B: all but the fan's own profile from Redis.
    const other = await b.gql<ReadPost>(READ_POST, { id: postId }, fan.token);
    expect(costOf(other).cache).toEqual({ hits: 3, misses: 1 });
    await like(b, fan.token, postId);
    expect((await a.gql<ReadPost>(READ_POST, { id: postId }, author.token)).data!.post!.likeCount).toBe(1);
    const edited = await b.gql(
      'mutation { updateProfile(input: { displayName: "Shared" }) { displayName } }',
      {},
      author.token,
    );
    expect(edited.errors).toBeUndefined();
    expect((await a.gql<ReadPost>(READ_POST, { id: postId }, fan.token)).data!.post!.author.displayName).toBe('Shared');
    // A follow through one instance is in the follower count the other had cached.
    const COUNT = 'query($id: ID!) { user(id: $id) { followerCount } }';
    expect((await a.gql(COUNT, { id: author.id }, fan.token)).data!.user.followerCount).toBe(0);
    expect(
      (await b.gql('mutation($id: ID!) { follow(userId: $id) { user { id } } }', { id: author.id }, fan.token)).errors,
    ).toBeUndefined();
    expect((await a.gql(COUNT, { id: author.id }, fan.token)).data!.user.followerCount).toBe(1);
  });
});
