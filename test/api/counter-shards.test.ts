import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { keys, tableName } from '../../src/stores/dynamo/keys.js';
import { type TestApp, startTestApp } from '../helpers/app.js';
import { createPost } from '../helpers/posts.js';
import { type RedisServer, startRedis } from '../helpers/redis.js';

/**
 * Posts that turn hot after creation get more counter shards (see docs/design/counters.md). A post
 * starts with one shard here (its author has no followers); one write a second a shard is the
 * limit, so a burst of likes raises it at once, while more likes, unlikes, views and reactions run.
 */
const HOT_AFTER_CREATION = { COUNTER_SHARD_WRITES_PER_SECOND: '1', COUNTER_SHARDS_MAX: '8' };

const COUNTS = 'likeCount viewCount reactionCounts { kind count } likedBy(first: 1) { totalCount }';

interface Counts {
  likeCount: number;
  viewCount: number;
  reactionCounts: { kind: string; count: number }[];
  likedBy: { totalCount: number };
}

async function mutate(t: TestApp, token: string, mutation: string, variables: Record<string, unknown>): Promise<void> {
  const result = await t.gql(mutation, variables, token);
  expect(result.errors).toBeUndefined();
}

const like = (t: TestApp, token: string, postId: string) =>
  mutate(t, token, 'mutation($id: ID!) { likePost(postId: $id) { post { id } } }', { id: postId });
const unlike = (t: TestApp, token: string, postId: string) =>
  mutate(t, token, 'mutation($id: ID!) { unlikePost(postId: $id) { post { id } } }', { id: postId });
const view = (t: TestApp, token: string, postId: string) =>
  mutate(t, token, 'mutation($id: ID!) { viewPost(postId: $id) { post { id } } }', { id: postId });
const react = (t: TestApp, token: string, postId: string) =>
  mutate(t, token, 'mutation($id: ID!) { react(postId: $id, kind: "clap") { post { id } } }', { id: postId });

async function postCounts(t: TestApp, postId: string, token: string): Promise<Counts> {
  const result = await t.gql<{ post: Counts }>(
    `query($id: ID!) { post(id: $id) { ${COUNTS} } }`,
    { id: postId },
    token,
  );
  expect(result.errors).toBeUndefined();
  return result.data!.post;
}

/** The post as its author's home timeline shows it: through the entry written at creation, which names one shard. */
async function homeCounts(t: TestApp, userId: string, postId: string, token: string): Promise<Counts | undefined> {
  const result = await t.gql<{ user: { timeline: { edges: { node: Counts & { id: string } }[] } } }>(
    `query($id: ID!) { user(id: $id) { timeline(first: 20) { edges { node { id ${COUNTS} } } } } }`,
    { id: userId },
    token,
  );
  expect(result.errors).toBeUndefined();
  return result.data!.user.timeline.edges.find((edge) => edge.node.id === postId)?.node;
}

/** The post item's counterShards, and the counter items there are, by shard number. */
async function shardsOf(
  t: TestApp,
  postId: string,
): Promise<{ counterShards: number; items: Map<number, Record<string, unknown>> }> {
  const table = tableName(t.tablePrefix);
  const client = createDocumentClient({ endpoint: t.endpoint, tableName: table });
  try {
    const post = await client.send(new GetCommand({ TableName: table, Key: keys.post(postId), ConsistentRead: true }));
    const counters = await client.send(
      new QueryCommand({
        TableName: table,
        ConsistentRead: true,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.counterShard(postId, 0).pk, ':prefix': 'COUNT#' },
      }),
    );
    const items = new Map((counters.Items ?? []).map((item) => [Number(String(item.sk).slice('COUNT#'.length)), item]));
    return { counterShards: Number(post.Item?.counterShards ?? 0), items };
  } finally {
    client.destroy();
  }
}

async function raises(t: TestApp): Promise<number> {
  const metrics = await (await fetch(`${t.url}/metrics`)).text();
  return Number(/^counter_shard_raises_total (\d+)/m.exec(metrics)?.[1] ?? 0);
}

/**
 * 24 users like the post at once; meanwhile each views it and reacts, and 6 of them take
 * their like back. Returns the counts that must result.
 */
async function driveHot(writer: TestApp, postId: string): Promise<Counts> {
  const users = await Promise.all(Array.from({ length: 24 }, () => writer.signUp()));
  await Promise.all(
    users.map(async (user, i) => {
      await like(writer, user.token, postId);
      await Promise.all([
        view(writer, user.token, postId),
        react(writer, user.token, postId),
        i < 6 ? unlike(writer, user.token, postId) : null,
      ]);
    }),
  );
  return { likeCount: 18, viewCount: 24, reactionCounts: [{ kind: 'clap', count: 24 }], likedBy: { totalCount: 18 } };
}

/** The separate shards hold counts: a reader that read only the post item its entry names would lose them. */
function countsInShards(items: Map<number, Record<string, unknown>>): number {
  return [...items.values()].reduce((sum, item) => sum + Number(item.likeCount) + Number(item.viewCount), 0);
}

describe('stored items: a post that turns hot after creation', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(HOT_AFTER_CREATION);
  });
  afterAll(async () => {
    await t.stop();
  });

  it('gets more counter shards, and its counts stay exact through the raise', { timeout: 120_000 }, async () => {
    const author = await t.signUp();
    const postId = await createPost(t, author.token, 'about to go viral');
    expect((await shardsOf(t, postId)).counterShards).toBe(1);
    // Cached before the raise: the post item (one shard, its counts) and the home entry naming one shard.
    expect((await postCounts(t, postId, author.token)).likeCount).toBe(0);
    expect((await homeCounts(t, author.id, postId, author.token))!.likeCount).toBe(0);
    const raisesBefore = await raises(t);

    const expected = await driveHot(t, postId);

    const { counterShards, items } = await shardsOf(t, postId);
    expect(counterShards).toBeGreaterThan(1);
    expect(counterShards).toBeLessThanOrEqual(8);
    expect([...items.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: counterShards }, (_, n) => n));
    expect(countsInShards(items)).toBeGreaterThan(0);
    expect(await raises(t)).toBeGreaterThan(raisesBefore);

    expect(await postCounts(t, postId, author.token)).toEqual(expected);
    expect(await homeCounts(t, author.id, postId, author.token)).toEqual({ id: postId, ...expected });
  });

  it('is deleted with every shard it has, also by a delete that read the post before a raise', async () => {
    const author = await t.signUp();
    const postId = await createPost(t, author.token, 'raised, then gone');
    const [before] = await t.app.stores.posts.getMany([postId], { consistent: true });
    expect(await t.app.stores.counters.raiseShards(before!, 4)).toBe(true);
    // A second raise from the same number finds it raised already.
    expect(await t.app.stores.counters.raiseShards(before!, 4)).toBe(false);
    expect((await shardsOf(t, postId)).items.size).toBe(4);

    const cleanup = {
      id: newId('tsk'),
      payload: { kind: 'deletePost' as const, postId, authorId: author.id, tags: [], mentionIds: [] },
    };
    expect(await t.app.stores.posts.delete(before!, cleanup)).toBe(true);
    expect((await shardsOf(t, postId)).items.size).toBe(0);
    expect(await t.app.stores.posts.delete(before!, cleanup)).toBe(false);
  });
});

describe('stored items: a raised post read through the caches of other instances', () => {
  it(
    'with CACHE=memory: an instance whose cached post item still names one shard sums every shard within the counter TTL',
    { timeout: 120_000 },
    async () => {
      // The reader keeps post items far longer than the test runs; its counter shards for 200 ms.
      const reader = await startTestApp({
        ...HOT_AFTER_CREATION,
        CACHE: 'memory',
        CACHE_TTL_MS: '600000',
        CACHE_COUNTER_TTL_MS: '200',
      });
      const writer = await startTestApp({
        ...HOT_AFTER_CREATION,
        CACHE: 'memory',
        TABLE_PREFIX: reader.tablePrefix,
        WORKER_ENABLED: 'false',
      });
      try {
        const author = await reader.signUp();
        const postId = await createPost(reader, author.token, 'hot elsewhere');
        expect((await postCounts(reader, postId, author.token)).likeCount).toBe(0);
        const expected = await driveHot(writer, postId);
        const { counterShards, items } = await shardsOf(writer, postId);
        expect(counterShards).toBeGreaterThan(1);
        expect(countsInShards(items)).toBeGreaterThan(0);
        // The reader's cached post item (one shard) is good for ten minutes more; its counters only for 200 ms.
        await expect.poll(() => postCounts(reader, postId, author.token), { timeout: 10_000 }).toEqual(expected);
        await expect
          .poll(() => homeCounts(reader, author.id, postId, author.token), { timeout: 10_000 })
          .toEqual({ id: postId, ...expected });
      } finally {
        await writer.stop();
        await reader.stop();
      }
    },
  );

  it('with CACHE=redis: the next read through another instance sums every shard', { timeout: 120_000 }, async () => {
    const redis: RedisServer = await startRedis();
    const reader = await startTestApp({
      ...HOT_AFTER_CREATION,
      REDIS_URL: redis.url,
      CACHE_TTL_MS: '600000',
      CACHE_COUNTER_TTL_MS: '600000',
    });
    const writer = await startTestApp({
      ...HOT_AFTER_CREATION,
      REDIS_URL: redis.url,
      TABLE_PREFIX: reader.tablePrefix,
      WORKER_ENABLED: 'false',
    });
    try {
      const author = await reader.signUp();
      const postId = await createPost(reader, author.token, 'hot on the other instance');
      expect((await postCounts(reader, postId, author.token)).likeCount).toBe(0);
      expect((await homeCounts(reader, author.id, postId, author.token))!.likeCount).toBe(0);
      const expected = await driveHot(writer, postId);
      const { counterShards, items } = await shardsOf(writer, postId);
      expect(counterShards).toBeGreaterThan(1);
      expect(countsInShards(items)).toBeGreaterThan(0);
      expect(await postCounts(reader, postId, author.token)).toEqual(expected);
      expect(await homeCounts(reader, author.id, postId, author.token)).toEqual({ id: postId, ...expected });
    } finally {
      await writer.stop();
      await reader.stop();
      await redis.stop();
    }
  });
});
