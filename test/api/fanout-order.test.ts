import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClaimedTask } from '../../src/stores/task-queue.js';
import type { TimelineStore } from '../../src/stores/timeline-store.js';
import { UNMETERED } from '../../src/stores/graph/traversal.js';
import { createLogger } from '../../src/logger.js';
import { createUseCases } from '../../src/usecases/use-cases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { partitions, tableName } from '../../src/stores/dynamo/keys.js';
import { createPost, follow, homeIds } from '../helpers/posts.js';

/**
 * Tasks of one post may run in any order (they sit in different queue partitions, and several
 * workers run at once). These tests take the tasks from the queue and run them in the order that
 * is hardest for the guarantees, with the worker of the API turned off.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ WORKER_ENABLED: 'false' });
});
afterAll(async () => {
  await t.stop();
});

/** Every task in the queue (notifications' tasks too, which follows and comments enqueue), claimed in as many claims as it takes. */
async function claimAll(): Promise<ClaimedTask[]> {
  const claimed: ClaimedTask[] = [];
  for (
    let batch = await t.app.stores.tasks.claim(50, 60_000);
    batch.length > 0;
    batch = await t.app.stores.tasks.claim(50, 60_000)
  )
    claimed.push(...batch);
  return claimed;
}

async function runTasks(order: (tasks: ClaimedTask[]) => ClaimedTask[]): Promise<void> {
  const { tasks: fanOut } = createUseCases(t.app.stores, t.app.config, createLogger('silent'));
  const tasks = await claimAll();
  for (const task of order(tasks)) {
    expect(
      await fanOut.run(
        task,
        async () => true,
        () => false,
      ),
    ).toBe('done');
    await t.app.stores.tasks.complete(task);
  }
}

/** The sort keys of a partition, read directly: also what the API hides because its post is gone. */
async function rawPartition(pk: string): Promise<string[]> {
  const client = createDocumentClient({ endpoint: t.endpoint, tableName: tableName(t.tablePrefix) });
  try {
    const result = await client.send(
      new QueryCommand({
        TableName: tableName(t.tablePrefix),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
      }),
    );
    return (result.Items ?? []).map((item) => item.sk as string);
  } finally {
    client.destroy();
  }
}

const rawHomeEntries = (userId: string) => rawPartition(partitions.home(userId));

const firstOfKind = (tasks: ClaimedTask[], kind: string) => [
  ...tasks.filter((x) => x.payload.kind === kind),
  ...tasks.filter((x) => x.payload.kind !== kind),
];

describe('stored items: task order', () => {
  it('a fan-out that runs after its post was deleted and cleaned up leaves nothing behind', async () => {
    const [author, ...followers] = await Promise.all(Array.from({ length: 4 }, () => t.signUp()));
    for (const f of followers) await follow(t, f.token, author!.id);
    await runTasks((tasks) => tasks);
    const postId = await createPost(t, author!.token, 'regretted');
    await t.gql('mutation($id: ID!) { deletePost(id: $id) { deletedPostId } }', { id: postId }, author!.token);

    await runTasks((tasks) => firstOfKind(tasks, 'deletePost'));
    for (const user of [author!, ...followers]) expect(await rawHomeEntries(user.id)).toEqual([]);
  });

  it('a backfill that runs after the unfollow and its removal leaves nothing behind', async () => {
    const [reader, author] = await Promise.all([t.signUp(), t.signUp()]);
    await createPost(t, author!.token, 'not for the reader');
    await runTasks((tasks) => tasks);
    await follow(t, reader!.token, author!.id);
    await t.gql('mutation($id: ID!) { unfollow(userId: $id) { user { id } } }', { id: author!.id }, reader!.token);

    await runTasks((tasks) => firstOfKind(tasks, 'unfollow'));
    expect(await rawHomeEntries(reader!.id)).toEqual([]);
    expect(await homeIds(t, reader!)).toEqual([]);
  });

  it('a deletePost cleanup works through a post with more records than one batch takes', async () => {
    const [author, reader] = await Promise.all([t.signUp(), t.signUp()]);
    const postId = await createPost(t, author!.token, 'much discussed');
    await runTasks((tasks) => tasks);
    for (let round = 0; round < 12; round++) {
      await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          t.gql(
            'mutation($id: ID!, $text: String!) { addComment(postId: $id, text: $text) { comment { id } } }',
            { id: postId, text: `c${round}-${i}` },
            reader!.token,
          ),
        ),
      );
    }
    await t.gql('mutation($id: ID!) { deletePost(id: $id) { deletedPostId } }', { id: postId }, author!.token);
    const checkpoints: string[] = [];
    const { tasks: fanOut } = createUseCases(t.app.stores, t.app.config, createLogger('silent'));
    for (const task of await claimAll()) {
      expect(
        await fanOut.run(
          task,
          async (checkpoint) => (checkpoints.push(checkpoint), true),
          () => false,
        ),
      ).toBe('done');
      await t.app.stores.tasks.complete(task);
    }
    expect(checkpoints.filter((c) => c === 'traces').length).toBeGreaterThan(0);
    expect(await rawPartition(partitions.comments(postId))).toEqual([]);
    expect(await rawPartition(partitions.post(postId))).toEqual([]);
    // 600 comments, each a transaction of its own: on a loaded machine their set-up alone nears a minute.
  }, 120_000);
});

describe('checkpoints', () => {
  it('a fan-out saves a position only once every follower before it holds the post, so a resumed one skips nobody', async () => {
    const [author, ...followers] = await Promise.all(Array.from({ length: 11 }, () => t.signUp()));
    for (const f of followers) await follow(t, f.token, author!.id);
    await runTasks((tasks) => tasks);
    const postId = await createPost(t, author!.token, 'checkpointed');
    const order = (await t.app.stores.graph.followers(author!.id, { first: 100, after: null }, UNMETERED)).items;

    // A slow store, whose writes complete long after their requests did; it records whose entries
    // are written as each write completes. The pages are pipelined: a checkpoint must still wait.
    const real = t.app.stores.timelines;
    const holding = new Set<string>();
    const timelines: TimelineStore = Object.assign(Object.create(real) as TimelineStore, {
      async addHomeEntries(...args: Parameters<TimelineStore['addHomeEntries']>) {
        const [entries] = args;
        await real.addHomeEntries(...args);
        await new Promise((resolve) => setTimeout(resolve, 500));
        for (const e of entries) if (e.postId === postId) holding.add(e.userId);
      },
    });
    const { tasks: fanOut } = createUseCases(
      { ...t.app.stores, timelines },
      { ...t.app.config, fanoutPageSize: 3 },
      createLogger('silent'),
    );
    const [task] = await t.app.stores.tasks.claim(50, 60_000);
    const passedAtEachCheckpoint: number[] = [];
    const outcome = await fanOut.run(
      task!,
      async (checkpoint) => {
        const passed = order.slice(0, order.findIndex((item) => item.cursor === checkpoint) + 1);
        passedAtEachCheckpoint.push(passed.length);
        expect(passed.filter((item) => !holding.has(item.id))).toEqual([]);
        return true;
      },
      () => false,
    );
    expect(outcome).toBe('done');
    await t.app.stores.tasks.complete(task!);
    // 10 followers in pages of 3: a position after each of the first two pages, in order; the last two pages finish together, and the task ends.
    expect(passedAtEachCheckpoint).toEqual([3, 6]);
    expect(holding).toEqual(new Set(followers.map((f) => f.id)));
  });
});
