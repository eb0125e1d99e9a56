import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idFrom, newId } from '../../src/domain/ids.js';
import { emptyCost, withCostMeter } from '../../src/observability/cost.js';
import { ActivityRanges } from '../../src/stores/dynamo/activity-ranges.js';
import { activityItem } from '../../src/stores/dynamo/activity-items.js';
import { BatchReader } from '../../src/stores/dynamo/batch-reader.js';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { keys, tableName } from '../../src/stores/dynamo/keys.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

const DAY_MS = 24 * 3_600_000;
let t: TestApp;
let client: DynamoDBDocumentClient;
let table: string;

beforeAll(async () => {
  t = await startTestApp();
  table = tableName(t.tablePrefix);
  client = createDocumentClient({ endpoint: t.endpoint, tableName: table });
});
afterAll(async () => {
  client.destroy();
  await t.stop();
});

/** A post id of `daysAgo` days ago, `n` ms apart from others, so that ids sort as asked. */
const postIdAt = (daysAgo: number, n = 0) => idFrom('pst', Date.now() - daysAgo * DAY_MS + n, Math.random);

async function like(userId: string, postId: string): Promise<void> {
  const record = keys.like(postId, userId);
  await client.send(new PutCommand({ TableName: table, Item: { ...record, at: new Date().toISOString() } }));
  await client.send(
    new PutCommand({
      TableName: table,
      Item: activityItem(userId, record, { kind: 'like', postId, counterShards: 1, atMs: Date.now() }),
    }),
  );
}

async function repost(userId: string, postId: string): Promise<void> {
  const record = keys.repost(postId, userId);
  await client.send(new PutCommand({ TableName: table, Item: { ...record, atMs: Date.now() } }));
  await client.send(
    new PutCommand({
      TableName: table,
      Item: activityItem(userId, record, { kind: 'repost', postId, counterShards: 1 }),
    }),
  );
}

/** Runs `ask` under a cost meter of its own: what it cost DynamoDB. */
async function measured<T>(ask: () => Promise<T>): Promise<{ answer: T; requests: number }> {
  const cost = emptyCost();
  const answer = await withCostMeter(cost, ask);
  return { answer, requests: cost.dynamodb.requests };
}

describe('stored items: the viewer-has questions of a page, from one range of the viewer activity', () => {
  it('answers likes and reposts of a page in one Query, a post of weeks ago by its record beside it', async () => {
    const viewer = newId('usr');
    const ranges = new ActivityRanges(client, table, new BatchReader(client, table, true));
    const page = Array.from({ length: 10 }, (_, n) => postIdAt(1, n * 1000));
    const old = postIdAt(30);
    const other = postIdAt(1, 500);
    await Promise.all([like(viewer, page[2]!), like(viewer, page[7]!), like(viewer, old), like(viewer, other)]);
    await Promise.all([repost(viewer, page[7]!), repost(viewer, page[9]!)]);
    const posts = [...page, old];
    const { answer, requests } = await measured(() =>
      Promise.all([ranges.has('LIKE', viewer, posts), ranges.has('REPOST', viewer, posts)]),
    );
    const [liked, reposted] = answer;
    expect(posts.filter((_, i) => liked[i])).toEqual([page[2], page[7], old]);
    expect(posts.filter((_, i) => reposted[i])).toEqual([page[7], page[9]]);
    // One Query for both kinds, and one BatchGetItem for the old post's two records.
    expect(requests).toBe(2);
  });

  it('looks up by record the posts past the activity one range read holds', async () => {
    const viewer = newId('usr');
    const ranges = new ActivityRanges(client, table, new BatchReader(client, table, true));
    const page = [postIdAt(2), postIdAt(1, 1), postIdAt(1, 2), postIdAt(0)];
    // 150 likes of other posts between the page's second and third post: more than one read takes.
    const between = Array.from({ length: 150 }, (_, n) => postIdAt(1, 10 + n));
    for (let i = 0; i < between.length; i += 25)
      await Promise.all(between.slice(i, i + 25).map((postId) => like(viewer, postId)));
    await Promise.all([like(viewer, page[0]!), like(viewer, page[3]!)]);
    const { answer, requests } = await measured(() => ranges.has('LIKE', viewer, page));
    expect(answer).toEqual([true, false, false, true]);
    expect(requests).toBe(2);
  });

  it('asks strongly consistent questions, and few ones, record by record', async () => {
    const viewer = newId('usr');
    const ranges = new ActivityRanges(client, table, new BatchReader(client, table, true));
    const page = Array.from({ length: 6 }, (_, n) => postIdAt(0, n));
    await like(viewer, page[4]!);
    expect(await ranges.has('LIKE', viewer, page, { consistent: true })).toEqual([
      false,
      false,
      false,
      false,
      true,
      false,
    ]);
    expect(await ranges.has('LIKE', viewer, page.slice(3, 5))).toEqual([false, true]);
  });
});
