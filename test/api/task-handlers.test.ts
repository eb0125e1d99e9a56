import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { keys, tableName } from '../../src/stores/dynamo/keys.js';
import type { PayloadOf, TaskKind, TaskPayload } from '../../src/domain/tasks.js';
import type { ClaimedTask } from '../../src/stores/task-queue.js';
import { positionAt, repostPosition } from '../../src/stores/timeline-store.js';
import { HomeRetention } from '../../src/usecases/home-retention.js';
import { BackfillHandler } from '../../src/usecases/tasks/backfill.js';
import { FollowerWalk } from '../../src/usecases/tasks/steps/follower-walk.js';
import { HomeDelivery, type Delivered } from '../../src/usecases/tasks/steps/home-delivery.js';
import { NotificationCheck } from '../../src/usecases/tasks/steps/notification-check.js';
import { NotifyHandler } from '../../src/usecases/tasks/notify.js';
import { DeletePostHandler } from '../../src/usecases/tasks/delete-post.js';
import { FanOutHandler } from '../../src/usecases/tasks/fan-out.js';
import { RepostHandler } from '../../src/usecases/tasks/repost.js';
import { type HandlerSet, TaskHandlers } from '../../src/usecases/tasks/registry.js';
import { UnfollowHandler } from '../../src/usecases/tasks/unfollow.js';
import { UnrepostHandler } from '../../src/usecases/tasks/unrepost.js';
import { newId } from '../../src/domain/ids.js';
import { createLogger } from '../../src/logger.js';
import { createUseCases } from '../../src/usecases/use-cases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createPost, follow, unfollow } from '../helpers/posts.js';
import { ReconcileActorHandler } from '../../src/usecases/tasks/reconcile-actor.js';

/**
 * Each task kind's handler run alone, against the service's stores, with no worker: the API
 * enqueues its tasks (WORKER_ENABLED=false) and nothing runs them but these tests.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ WORKER_ENABLED: 'false' });
});
afterAll(async () => {
  await t.stop();
});

/** What the fan-out handlers announced (live updates), newest last. */
const announced: Delivered[] = [];

function handlers() {
  const { stores, config } = t.app;
  const followers = new FollowerWalk(stores.graph, 2);
  const homes = new HomeDelivery(stores.timelines, new HomeRetention(config.homeRetentionDays, stores.clock));
  const backfill = new BackfillHandler(stores.timelines, stores.graph, homes, 5);
  const repost = new RepostHandler(stores.posts, stores.reposts, followers, homes, (delivered) =>
    announced.push(delivered),
  );
  const { reposts, relationships } = createUseCases(stores, config, createLogger('silent'));
  const check = new NotificationCheck(stores, relationships);
  return {
    fanOut: new FanOutHandler(stores.posts, stores.reposts, followers, homes, stores.fanOutProgress, (delivered) =>
      announced.push(delivered),
    ),
    deletePost: new DeletePostHandler(
      stores.timelines,
      followers,
      (postId) => reposts.undoBatch(postId, 2),
      stores.notifications,
      stores.posts,
    ),
    backfill,
    unfollow: new UnfollowHandler(stores.timelines, stores.graph, backfill),
    repost,
    unrepost: new UnrepostHandler(stores.reposts, followers, homes, repost),
    notify: new NotifyHandler(stores.notifications, check, config.notificationsMax, () => {}),
    reconcileActor: new ReconcileActorHandler(stores.notifications, check, 2),
  };
}

/** Runs a task of `kind` with the handler alone, from the start, recording its checkpoints. */
async function run<K extends Exclude<TaskKind, 'deleteAccount'>>(
  kind: K,
  payload: Omit<PayloadOf<K>, 'kind'>,
  checkpoints: string[] = [],
) {
  const handler = handlers()[kind] as unknown as { run(r: object): Promise<string> };
  return handler.run({
    payload: { kind, ...payload },
    checkpoint: null,
    save: async (c: string) => (checkpoints.push(c), true),
    stopping: () => false,
  });
}

/** The store's calls below keep every entry, however old: their entries' expiry and this horizon are the epoch's. */
const EVER = positionAt(0);

/** The user's home entries as stored: post id → reason (null for an original). */
async function home(userId: string): Promise<Map<string, string | null>> {
  const [entries] = await t.app.stores.timelines.homeLists(userId, [], { first: 100, after: null }, EVER);
  return new Map(entries!.map((e) => [e.postId, e.repostedBy]));
}

const repost = (token: string, postId: string, mutation = 'repost') =>
  t.gql(`mutation($id: ID!) { ${mutation}(postId: $id) { post { id } } }`, { id: postId }, token);

describe('TaskHandlers', () => {
  it('runs each task by its kind’s handler and fails a kind it has none for', async () => {
    const ran: string[] = [];
    const handler = (kind: TaskKind) => ({ kind, run: async () => (ran.push(kind), 'done' as const) });
    const all = Object.fromEntries(
      (['fanOut', 'deletePost', 'backfill', 'unfollow', 'repost', 'unrepost', 'deleteAccount'] as const).map((k) => [
        k,
        handler(k),
      ]),
    ) as unknown as HandlerSet;
    const tasks = new TaskHandlers(all);
    const claimed = (payload: unknown) =>
      ({ id: 'tsk_x', payload, checkpoint: null, attempts: 1, failures: 0, shard: 0, leaseToken: 'l' }) as ClaimedTask;
    expect(
      await tasks.run(
        claimed({ kind: 'unrepost', postId: 'p', reposterId: 'u' } satisfies TaskPayload),
        async () => true,
        () => false,
      ),
    ).toBe('done');
    expect(ran).toEqual(['unrepost']);
    await expect(
      tasks.run(
        claimed({ kind: 'toString' }),
        async () => true,
        () => false,
      ),
    ).rejects.toThrow('unknown task kind "toString"');
    await expect(
      tasks.run(
        claimed({}),
        async () => true,
        () => false,
      ),
    ).rejects.toThrow('unknown task kind');
  });
});

describe('one handler per task kind, run alone', () => {
  it('fanOut copies the post to every follower page by page, and nothing once the post is gone', async () => {
    const [author, ...followers] = await Promise.all(Array.from({ length: 6 }, () => t.signUp()));
    for (const f of followers) await follow(t, f.token, author!.id);
    const postId = await createPost(t, author!.token, 'fanned');
    const checkpoints: string[] = [];
    expect(await run('fanOut', { postId, authorId: author!.id }, checkpoints)).toBe('done');
    // Pages of 2: the first is finished and checkpointed while the second is written; the last two are finished together.
    expect(checkpoints).toHaveLength(1);
    for (const f of followers) expect((await home(f.id)).get(postId)).toBeNull();

    const gone = await createPost(t, author!.token, 'gone');
    await t.gql('mutation($id: ID!) { deletePost(id: $id) { deletedPostId } }', { id: gone }, author!.token);
    expect(await run('fanOut', { postId: gone, authorId: author!.id })).toBe('done');
    for (const f of followers) expect((await home(f.id)).has(gone)).toBe(false);
  });

  it('fanOut of a post reposted before it runs leaves one entry, with the first reason, on every page', async () => {
    const [author, reposter, ...followers] = await Promise.all(Array.from({ length: 7 }, () => t.signUp()));
    for (const f of followers) {
      await follow(t, f.token, author!.id);
      await follow(t, f.token, reposter!.id);
    }
    const postId = await createPost(t, author!.token, 'reposted before its fan-out');
    await repost(reposter!.token, postId);
    expect(await run('repost', { postId, reposterId: reposter!.id })).toBe('done');
    // Pages of 2: the second and third pages' checks are read while the page before them is written.
    expect(await run('fanOut', { postId, authorId: author!.id })).toBe('done');
    for (const f of followers) {
      const [entries] = await t.app.stores.timelines.homeLists(f.id, [], { first: 100, after: null }, EVER);
      expect(entries!.filter((e) => e.postId === postId).map((e) => e.repostedBy)).toEqual([reposter!.id]);
    }
  });

  it('repost writes the reposter as the reason where no entry is, leaves originals alone, and writes nothing for a repost undone', async () => {
    const [author, reposter, plain, both] = await Promise.all(Array.from({ length: 4 }, () => t.signUp()));
    for (const f of [plain!, both!]) await follow(t, f.token, reposter!.id);
    await follow(t, both!.token, author!.id);
    const postId = await createPost(t, author!.token, 'reposted');
    await run('fanOut', { postId, authorId: author!.id });
    await repost(reposter!.token, postId);
    announced.length = 0;
    expect(await run('repost', { postId, reposterId: reposter!.id })).toBe('done');
    // Every receiver is announced the repost with its reason, the reposter first.
    expect(
      announced.every((d) => d.postId === postId && d.authorId === author!.id && d.repostedBy === reposter!.id),
    ).toBe(true);
    expect(announced.flatMap((d) => d.userIds).sort()).toEqual([reposter!.id, plain!.id, both!.id].sort());
    expect((await home(plain!.id)).get(postId)).toBe(reposter!.id);
    expect((await home(reposter!.id)).get(postId)).toBe(reposter!.id);
    expect((await home(both!.id)).get(postId)).toBeNull();

    const undone = await createPost(t, author!.token, 'undone');
    await repost(reposter!.token, undone);
    await repost(reposter!.token, undone, 'unrepost');
    expect(await run('repost', { postId: undone, reposterId: reposter!.id })).toBe('done');
    expect((await home(plain!.id)).has(undone)).toBe(false);
  });

  it('unrepost takes the reason back and the entries it alone held, and does nothing when the post was reposted again first', async () => {
    const [author, reposter, follower] = await Promise.all(Array.from({ length: 3 }, () => t.signUp()));
    await follow(t, follower!.token, reposter!.id);
    const postId = await createPost(t, author!.token, 'taken back');
    await repost(reposter!.token, postId);
    await run('repost', { postId, reposterId: reposter!.id });
    await repost(reposter!.token, postId, 'unrepost');
    await repost(reposter!.token, postId);
    // Reposted again before the unrepost task ran: it leaves the entries to the new repost.
    expect(await run('unrepost', { postId, reposterId: reposter!.id })).toBe('done');
    expect((await home(follower!.id)).get(postId)).toBe(reposter!.id);
    await repost(reposter!.token, postId, 'unrepost');
    expect(await run('unrepost', { postId, reposterId: reposter!.id })).toBe('done');
    expect((await home(follower!.id)).has(postId)).toBe(false);
    expect((await home(reposter!.id)).has(postId)).toBe(false);
  });

  it('unrepost finishes with the repost’s fan-out when reposted while it ran, and a resumed task goes on with that fan-out', async () => {
    const [author, reposter, ...followers] = await Promise.all(Array.from({ length: 7 }, () => t.signUp()));
    for (const f of followers) await follow(t, f.token, reposter!.id);
    const postId = await createPost(t, author!.token, 'back and forth');
    await repost(reposter!.token, postId);
    await run('repost', { postId, reposterId: reposter!.id });
    await repost(reposter!.token, postId, 'unrepost');
    const checkpoints: string[] = [];
    let reposted = false;
    let redelivering = false;
    const { unrepost } = handlers();
    const first = await unrepost.run({
      payload: { kind: 'unrepost', postId, reposterId: reposter!.id },
      checkpoint: null,
      save: async (checkpoint) => {
        checkpoints.push(checkpoint);
        // Reposted again while the removal walks the followers.
        if (!reposted) await repost(reposter!.token, postId);
        reposted = true;
        redelivering = checkpoint.startsWith('redeliver:');
        return true;
      },
      // The worker stops as soon as the redelivery has begun.
      stopping: () => redelivering,
    });
    expect(first).toBe('stopped');
    const resumeAt = checkpoints.at(-1)!;
    expect(resumeAt).toMatch(/^redeliver:./);
    const missing = async () =>
      (await Promise.all(followers.map(async (f) => (await home(f.id)).get(postId)))).filter(
        (reason) => reason !== reposter!.id,
      );
    expect((await missing()).length).toBeGreaterThan(0);
    expect(
      await unrepost.run({
        payload: { kind: 'unrepost', postId, reposterId: reposter!.id },
        checkpoint: resumeAt,
        save: async () => true,
        stopping: () => false,
      }),
    ).toBe('done');
    expect(await missing()).toEqual([]);
    expect((await home(reposter!.id)).get(postId)).toBe(reposter!.id);
  });

  it('deletePost walks the author’s followers, then undoes the reposts, then removes the records, checkpointing each phase', async () => {
    const [author, reposter, ...followers] = await Promise.all(Array.from({ length: 5 }, () => t.signUp()));
    for (const f of followers) await follow(t, f.token, author!.id);
    await follow(t, followers[0]!.token, reposter!.id);
    const postId = await createPost(t, author!.token, 'deleted with its reposts');
    await run('fanOut', { postId, authorId: author!.id });
    await repost(reposter!.token, postId);
    await run('repost', { postId, reposterId: reposter!.id });
    await t.gql('mutation($id: ID!) { deletePost(id: $id) { deletedPostId } }', { id: postId }, author!.token);
    const checkpoints: string[] = [];
    expect(await run('deletePost', { postId, authorId: author!.id, tags: [] }, checkpoints)).toBe('done');
    expect(checkpoints.slice(-3)).toEqual(['reposts', 'mentions', 'traces']);
    for (const f of followers) expect((await home(f.id)).has(postId)).toBe(false);
    // The reposter's own entry goes with the repost's unrepost task, enqueued by the cleanup.
    const [reposted] = await t.app.stores.reposts.hasReposted([{ postId, userId: reposter!.id }], { consistent: true });
    expect(reposted).toBe(false);
    expect(await run('unrepost', { postId, reposterId: reposter!.id })).toBe('done');
    expect((await home(reposter!.id)).has(postId)).toBe(false);
  });

  it('backfill copies the followee’s newest posts while the follow holds; unfollow takes the followee’s posts and reposts back', async () => {
    const [followee, author, follower] = await Promise.all(Array.from({ length: 3 }, () => t.signUp()));
    const own = await createPost(t, followee!.token, 'own');
    const other = await createPost(t, author!.token, 'reposted by the followee');
    await follow(t, follower!.token, followee!.id);
    expect(await run('backfill', { followerId: follower!.id, followeeId: followee!.id })).toBe('done');
    expect((await home(follower!.id)).get(own)).toBeNull();
    await repost(followee!.token, other);
    await run('repost', { postId: other, reposterId: followee!.id });
    expect((await home(follower!.id)).get(other)).toBe(followee!.id);

    await unfollow(t, follower!.token, followee!.id);
    expect(await run('unfollow', { followerId: follower!.id, followeeId: followee!.id })).toBe('done');
    expect(await home(follower!.id)).toEqual(new Map());
    expect(await run('backfill', { followerId: follower!.id, followeeId: followee!.id })).toBe('done');
    expect(await home(follower!.id)).toEqual(new Map());
  });
});

describe('home entries of reposts', () => {
  it('are placed once when two reposts of one post reach a timeline at once, at the place of one of them', async () => {
    const { timelines } = t.app.stores;
    const postId = newId('pst');
    const positions = ['usr_first', 'usr_second'].map((reposterId) => ({
      reposterId,
      position: repostPosition(reposterId),
    }));
    // Both read the timeline before either writes: the marker's condition lets one place the entry and makes the other a reason.
    await Promise.all(
      positions.map(({ reposterId, position }) =>
        timelines.addRepostEntries(
          [
            {
              userId: 'usr_raced',
              postId,
              authorId: 'usr_a',
              counterShards: 1,
              repostedBy: reposterId,
              position,
              expiresAt: 0,
            },
          ],
          { horizon: EVER },
        ),
      ),
    );
    const [entries] = await timelines.homeLists('usr_raced', [], { first: 100, after: null }, EVER);
    expect(entries).toHaveLength(1);
    expect(positions.map((p) => p.position)).toContain(entries![0]!.position);
    await timelines.removeHomeReasons([{ userId: 'usr_raced', postId, reposterId: entries![0]!.repostedBy }]);
    const [left] = await timelines.homeLists('usr_raced', [], { first: 100, after: null }, EVER);
    expect(left!.map((e) => [e.position, e.repostedBy])).toEqual([
      [entries![0]!.position, positions.find((p) => p.reposterId !== entries![0]!.repostedBy)!.reposterId],
    ]);

    // A deleted post goes whatever brought it, marker and all: a later repost of the post places it afresh.
    await timelines.removeHomeEntries([{ userId: 'usr_raced', postId }]);
    expect((await timelines.homeLists('usr_raced', [], { first: 100, after: null }, EVER))[0]).toEqual([]);
    const again = repostPosition('usr_third');
    await timelines.addRepostEntries(
      [
        {
          userId: 'usr_raced',
          postId,
          authorId: 'usr_a',
          counterShards: 1,
          repostedBy: 'usr_third',
          position: again,
          expiresAt: 0,
        },
      ],
      { horizon: EVER },
    );
    expect(
      (await timelines.homeLists('usr_raced', [], { first: 100, after: null }, EVER))[0]!.map((e) => [
        e.position,
        e.repostedBy,
      ]),
    ).toEqual([[again, 'usr_third']]);
  });
});

describe('stored items: home entries written before feed positions', () => {
  it('are read where they are, gain and lose reasons, and go when none is left', async () => {
    const { timelines } = t.app.stores;
    const postId = 'pst_01JD0000000000000000000000';
    const client = createDocumentClient({ endpoint: t.endpoint, tableName: tableName(t.tablePrefix) });
    // As the previous version wrote them: at the post id, a repost entry's reasons in the entry itself.
    const legacy = (userId: string, reasons: string[]) => ({
      ...keys.homeEntry(userId, postId),
      postId,
      authorId: 'usr_a',
      counterShards: 1,
      ...(reasons.length > 0 ? { repostedBy: reasons[0], reposters: new Set(reasons) } : {}),
    });
    for (const [userId, reasons] of [
      ['usr_legacy_one', ['usr_r']],
      ['usr_legacy_two', ['usr_r', 'usr_s']],
      ['usr_legacy_original', []],
    ] as const) {
      await client.send(new PutCommand({ TableName: tableName(t.tablePrefix), Item: legacy(userId, [...reasons]) }));
    }
    client.destroy();
    expect(await home('usr_legacy_one')).toEqual(new Map([[postId, 'usr_r']]));

    // A repost reaching a timeline that has the post adds its reason and no second entry.
    await timelines.addRepostEntries(
      [
        {
          userId: 'usr_legacy_original',
          postId,
          authorId: 'usr_a',
          counterShards: 1,
          repostedBy: 'usr_s',
          position: repostPosition('usr_s'),
          expiresAt: 0,
        },
      ],
      { horizon: EVER },
    );
    expect(await home('usr_legacy_original')).toEqual(new Map([[postId, null]]));

    await timelines.removeHomeReasons([
      { userId: 'usr_legacy_one', postId, reposterId: 'usr_r' },
      { userId: 'usr_legacy_two', postId, reposterId: 'usr_r' },
      { userId: 'usr_legacy_original', postId, reposterId: null },
    ]);
    expect(await home('usr_legacy_one')).toEqual(new Map());
    expect(await home('usr_legacy_two')).toEqual(new Map([[postId, 'usr_s']]));
    // The author unfollowed, the post stays for the repost that also brought it.
    expect(await home('usr_legacy_original')).toEqual(new Map([[postId, 'usr_s']]));
    await timelines.removeHomeEntries([{ userId: 'usr_legacy_two', postId }]);
    expect(await home('usr_legacy_two')).toEqual(new Map());
  });
});
