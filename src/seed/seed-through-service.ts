import type { Config } from '../config.js';
import { chunk, mapConcurrently } from '../lib/collections.js';
import { newId } from '../domain/ids.js';
import type { Logger } from '../logger.js';
import type { Stores } from '../stores/stores.js';
import type { ClaimedTask } from '../stores/task-queue.js';
import { FollowerWalk } from '../usecases/tasks/steps/follower-walk.js';
import { HomeRetention } from '../usecases/home-retention.js';
import { HomeDelivery } from '../usecases/tasks/steps/home-delivery.js';
import { FanOutHandler } from '../usecases/tasks/fan-out.js';
import type { RunOutcome, SaveCheckpoint, TaskRunner } from '../usecases/tasks/task-handler.js';
import { Worker } from '../worker/worker.js';
import type { Network } from './network.js';
import type { Progress } from './progress.js';
import { type SeedSummary, followEdges, prepareSeed } from './seed.js';

/**
 * Writes a generated network through the service's own stores and paths, one record at a
 * time: sign-up's transaction per user, the graph store's follow import (transactions with
 * the edges' counts), one createPost transaction per post with its fan-out task, the real
 * worker to fan the posts out, and one like transaction per like. Far slower than the bulk
 * import (`seedNetwork`); kept as the reference that the bulk import is compared with
 * (`npm run seed -- --through-service`, test/api/seed.test.ts).
 */
export type ServiceSeedSettings = Pick<
  Config,
  | 'fanoutMaxFollowers'
  | 'hotAuthorFollowers'
  | 'counterShards'
  | 'fanoutPageSize'
  | 'followBackfillPosts'
  | 'homeRetentionDays'
  | 'queueLeaseMs'
  | 'queueMaxAttempts'
>;

/** Writes in flight at once: enough to keep DynamoDB busy, few enough not to drown it in retries. */
const CONCURRENCY = 16;
const FOLLOW_CHUNK = 1000;
const GRAPH_USER_CHUNK = 100;
const WORKER_CONCURRENCY = 8;

export async function seedThroughService(
  stores: Stores,
  network: Network,
  settings: ServiceSeedSettings,
  progress: Progress,
  logger: Logger,
): Promise<SeedSummary> {
  const started = Date.now();
  const { users, posts, placements } = await prepareSeed(stores, network, settings);
  const retention = new HomeRetention(settings.homeRetentionDays, stores.clock);

  let phase = progress.stage('users', users.length);
  await mapConcurrently(users, CONCURRENCY, async (user) => {
    await stores.users.create(user);
    phase.tick();
  });
  await mapConcurrently(chunk(users, GRAPH_USER_CHUNK), 4, (part) =>
    stores.graph.upsertUsers(part.map((u) => ({ id: u.id, handle: u.handle, interests: u.interests }))),
  );
  const usersMs = phase.finish();

  phase = progress.stage('follows', network.follows.length);
  for (const part of chunk(followEdges(network, users), FOLLOW_CHUNK)) {
    await stores.graph.importFollows(part);
    phase.tick(part.length);
  }
  const followsMs = phase.finish();

  const fanOutTasks = placements.filter((p) => p.fanOut).length;
  // The author's own entry with each post; fan-out writes none past the retention.
  const horizon = retention.horizon();
  const homeEntries = network.posts.reduce(
    (sum, p, i) => sum + 1 + (placements[i]!.fanOut && posts[i]!.id >= horizon ? network.followerCounts[p.author]! : 0),
    0,
  );
  const fanOut = new CountingFanOut(stores, settings, retention);
  const worker = new Worker(
    stores.tasks,
    fanOut,
    {
      pollMs: 200,
      leaseMs: settings.queueLeaseMs,
      concurrency: WORKER_CONCURRENCY,
      maxAttempts: settings.queueMaxAttempts,
    },
    logger.child({ component: 'seed-worker' }),
  );
  worker.start();
  let postsMs: number;
  let fanOutMs: number;
  try {
    phase = progress.stage('posts', posts.length);
    await mapConcurrently(posts, CONCURRENCY, async (post, i) => {
      const task = placements[i]!.fanOut
        ? { id: newId('tsk'), payload: { kind: 'fanOut' as const, postId: post.id, authorId: post.authorId } }
        : null;
      await stores.posts.create(
        post,
        task
          ? { kind: 'fanOut', task, followers: network.followerCounts[network.posts[i]!.author]! }
          : { kind: 'outbox' },
        null,
        retention.expiresAt(post.id),
      );
      if (task) worker.nudge(task);
      phase.tick();
    });
    postsMs = phase.finish();

    phase = progress.stage('fan-out', fanOutTasks);
    const fanOutStarted = Date.now();
    while (fanOut.finished < fanOutTasks) {
      phase.set(fanOut.finished);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    phase.set(fanOut.finished);
    phase.finish();
    fanOutMs = Date.now() - fanOutStarted;
  } finally {
    await worker.stop();
  }

  phase = progress.stage('likes', network.likes.length);
  await mapConcurrently(network.likes, CONCURRENCY, async (like) => {
    await stores.counters.like(posts[like.post]!, users[like.user]!.id);
    phase.tick();
  });
  const likesMs = phase.finish();

  return {
    users: users.length,
    follows: network.follows.length,
    posts: posts.length,
    homeEntries,
    likes: network.likes.length,
    userIds: users.map((u) => u.id),
    postIds: posts.map((p) => p.id),
    phasesMs: { users: usersMs, follows: followsMs, posts: postsMs, fanOut: fanOutMs, likes: likesMs },
    totalMs: Date.now() - started,
  };
}

/** The service's fan-out handler, counting the post fan-outs it has finished so that the seed knows when the worker is done. */
class CountingFanOut implements TaskRunner {
  finished = 0;
  private readonly fanOut: FanOutHandler;

  constructor(stores: Stores, settings: ServiceSeedSettings, retention: HomeRetention) {
    const followers = new FollowerWalk(stores.graph, settings.fanoutPageSize);
    this.fanOut = new FanOutHandler(
      stores.posts,
      stores.reposts,
      followers,
      new HomeDelivery(stores.timelines, retention),
      stores.fanOutProgress,
      () => {},
    );
  }

  async run(task: ClaimedTask, save: SaveCheckpoint, stopping: () => boolean): Promise<RunOutcome> {
    if (task.payload.kind !== 'fanOut')
      throw new Error(`the seed enqueues fanOut tasks only, not ${task.payload.kind}`);
    const outcome = await this.fanOut.run({ payload: task.payload, checkpoint: task.checkpoint, save, stopping });
    if (outcome === 'done') this.finished += 1;
    return outcome;
  }
}
