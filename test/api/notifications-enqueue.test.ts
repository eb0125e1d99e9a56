import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { partitions, tableName } from '../../src/stores/dynamo/keys.js';
import type { NotificationCause } from '../../src/domain/models.js';
import type { Stores } from '../../src/stores/stores.js';
import type { TaskPayload } from '../../src/domain/tasks.js';
import type { ClaimedTask } from '../../src/stores/task-queue.js';
import { createUseCases } from '../../src/usecases/use-cases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createPost, follow } from '../helpers/posts.js';

/**
 * A notification's task is written in its action's transaction. With the API's worker off, the
 * tests read the queue itself: what an action (or a crash right after its write) left there.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ WORKER_ENABLED: 'false' });
});
afterAll(async () => {
  await t.stop();
});

type Account = { id: string; handle: string; token: string };
const users = (n: number) => Promise.all(Array.from({ length: n }, () => t.signUp()));

/** The causes of the notify tasks waiting in the queue that concern `recipientId`. */
async function queuedNotifications(recipientId: string): Promise<NotificationCause[]> {
  const client = createDocumentClient({ endpoint: t.endpoint, tableName: tableName(t.tablePrefix) });
  try {
    const causes: NotificationCause[] = [];
    for (let shard = 0; shard < t.app.config.queueShards; shard++) {
      const result = await client.send(
        new QueryCommand({
          TableName: tableName(t.tablePrefix),
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': partitions.queue(shard) },
          ConsistentRead: true,
        }),
      );
      for (const item of result.Items ?? []) {
        const payload = item.payload as TaskPayload;
        if (payload.kind === 'notify' && payload.cause.recipientId === recipientId) causes.push(payload.cause);
      }
    }
    return causes;
  } finally {
    client.destroy();
  }
}

/** Runs every queued task as the worker would. */
async function runQueue(): Promise<void> {
  const { tasks } = createUseCases(t.app.stores, t.app.config, createLogger('silent'));
  for (;;) {
    const batch: ClaimedTask[] = await t.app.stores.tasks.claim(50, 60_000);
    if (batch.length === 0) return;
    for (const task of batch) {
      expect(
        await tasks.run(
          task,
          async () => true,
          () => false,
        ),
      ).toBe('done');
      await t.app.stores.tasks.complete(task);
    }
  }
}

/** The stores, with `method` of `store` writing and then failing as a process would that died right after the write. */
function crashingAfter<S extends keyof Stores>(store: S, method: keyof Stores[S]): Stores {
  const real = t.app.stores[store] as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const crashing = Object.assign(Object.create(real) as object, {
    [method]: async (...args: unknown[]) => {
      await real[method as string]!.apply(real, args);
      throw new Error('the process died here');
    },
  });
  return { ...t.app.stores, [store]: crashing };
}

async function notifications(user: Account) {
  const data = await t.gqlData(
    'query($id: ID!) { user(id: $id) { unreadNotificationCount notifications(first: 20) { edges { node { kind actorCount actors { id } } } } } }',
    { id: user.id },
    user.token,
  );
  return {
    unread: data.user.unreadNotificationCount as number,
    groups: (
      data.user.notifications.edges as { node: { kind: string; actorCount: number; actors: { id: string }[] } }[]
    ).map((e) => e.node),
  };
}

const like = (token: string, postId: string, mutation = 'likePost') =>
  t.gqlData(`mutation($id: ID!) { ${mutation}(postId: $id) { post { id } } }`, { id: postId }, token);

describe('stored items: a notification is enqueued with its action', () => {
  it('a crash right after an action loses no notification, whichever action it was', async () => {
    const [author, actor, mentioned] = await users(3);
    const post = await createPost(t, author!.token, 'act on me');
    const logger = createLogger('silent');
    const cases: [Stores, (useCases: ReturnType<typeof createUseCases>) => Promise<unknown>, NotificationCause][] = [
      [
        crashingAfter('counters', 'like'),
        (u) => u.counters.likePost(actor!.id, post),
        { recipientId: author!.id, kind: 'LIKE', postId: post, actorId: actor!.id },
      ],
      [
        crashingAfter('reposts', 'add'),
        (u) => u.reposts.repost(actor!.id, post),
        { recipientId: author!.id, kind: 'REPOST', postId: post, actorId: actor!.id },
      ],
      [
        crashingAfter('posts', 'addComment'),
        (u) => u.comments.add(actor!.id, post, 'a comment'),
        { recipientId: author!.id, kind: 'COMMENT', postId: post, actorId: actor!.id },
      ],
      [
        crashingAfter('graph', 'follow'),
        (u) => u.follows.follow(actor!.id, author!.id),
        { recipientId: author!.id, kind: 'FOLLOW', postId: null, actorId: actor!.id },
      ],
    ];
    for (const [stores, action, cause] of cases) {
      await expect(action(createUseCases(stores, t.app.config, logger))).rejects.toThrow('the process died here');
      expect(await queuedNotifications(author!.id)).toContainEqual(cause);
    }
    // A post that mentions someone.
    const mentioning = createUseCases(crashingAfter('posts', 'create'), t.app.config, logger);
    await expect(mentioning.posts.create(actor!.id, { text: `hello @${mentioned!.handle}` })).rejects.toThrow(
      'the process died here',
    );
    expect(await queuedNotifications(mentioned!.id)).toMatchObject([
      { recipientId: mentioned!.id, kind: 'MENTION', actorId: actor!.id },
    ]);

    await runQueue();
    const { groups, unread } = await notifications(author!);
    expect(groups.map((g) => [g.kind, g.actors.map((a) => a.id)]).sort()).toEqual([
      ['COMMENT', [actor!.id]],
      ['FOLLOW', [actor!.id]],
      ['LIKE', [actor!.id]],
      ['REPOST', [actor!.id]],
    ]);
    expect(unread).toBe(4);
    expect((await notifications(mentioned!)).groups).toMatchObject([{ kind: 'MENTION', actorCount: 1 }]);

    // The undos too: the task that takes the actor out is written with the undo.
    const undos: [Stores, (useCases: ReturnType<typeof createUseCases>) => Promise<unknown>][] = [
      [crashingAfter('counters', 'unlike'), (u) => u.counters.unlikePost(actor!.id, post)],
      [crashingAfter('reposts', 'remove'), (u) => u.reposts.unrepost(actor!.id, post)],
      [crashingAfter('graph', 'unfollow'), (u) => u.follows.unfollow(actor!.id, author!.id)],
    ];
    for (const [stores, undo] of undos)
      await expect(undo(createUseCases(stores, t.app.config, logger))).rejects.toThrow('the process died here');
    expect(await queuedNotifications(author!.id)).toHaveLength(3);
    await runQueue();
    expect((await notifications(author!)).groups.map((g) => g.kind)).toEqual(['COMMENT']);
  });

  it('a page whose groups the rules leave out reads further, as timelines do', async () => {
    const [author, liker] = await users(2);
    const posts: string[] = [];
    for (let i = 0; i < 5; i++) posts.push(await createPost(t, author!.token, `page ${i}`));
    for (const post of posts) await like(liker!.token, post);
    await runQueue();
    // The three newest posts are deleted; their cleanup tasks (which drop their groups) have not run yet, so their groups are read and left out.
    for (const post of posts.slice(2))
      await t.gqlData('mutation($id: ID!) { deletePost(id: $id) { deletedPostId } }', { id: post }, author!.token);
    const query =
      'query($id: ID!, $after: String) { user(id: $id) { notifications(first: 2, after: $after) { edges { node { post { id } } } pageInfo { hasNextPage endCursor } } } }';
    const page = (await t.gqlData(query, { id: author!.id }, author!.token)).user.notifications;
    expect(page.edges.map((e: { node: { post: { id: string } } }) => e.node.post.id)).toEqual([posts[1], posts[0]]);
    const rest = (await t.gqlData(query, { id: author!.id, after: page.pageInfo.endCursor }, author!.token)).user
      .notifications;
    expect(rest.edges).toEqual([]);
    expect(rest.pageInfo.hasNextPage).toBe(false);
    await runQueue();
  });

  it('an action that changes nothing (a retry, a failed condition) enqueues nothing', async () => {
    const [author, actor] = await users(2);
    const post = await createPost(t, author!.token, 'retry me');
    await like(actor!.token, post);
    await like(actor!.token, post);
    await follow(t, actor!.token, author!.id);
    await follow(t, actor!.token, author!.id);
    await like(actor!.token, post, 'repost');
    await like(actor!.token, post, 'repost');
    const comment =
      'mutation($id: ID!) { addComment(postId: $id, text: "once", idempotencyKey: "k-1") { comment { id } } }';
    await t.gqlData(comment, { id: post }, actor!.token);
    await t.gqlData(comment, { id: post }, actor!.token);
    expect((await queuedNotifications(author!.id)).map((c) => c.kind).sort()).toEqual([
      'COMMENT',
      'FOLLOW',
      'LIKE',
      'REPOST',
    ]);

    await runQueue();
    const { groups, unread } = await notifications(author!);
    expect(groups.map((g) => g.actorCount)).toEqual([1, 1, 1, 1]);
    expect(unread).toBe(4);

    // Undoing what is not there (twice over) enqueues nothing either.
    await like(actor!.token, post, 'unlikePost');
    await like(actor!.token, post, 'unlikePost');
    await like(actor!.token, post, 'unrepost');
    await like(actor!.token, post, 'unrepost');
    expect((await queuedNotifications(author!.id)).map((c) => c.kind).sort()).toEqual(['LIKE', 'REPOST']);
    await runQueue();
    expect((await notifications(author!)).groups.map((g) => g.kind).sort()).toEqual(['COMMENT', 'FOLLOW']);
  });
});
