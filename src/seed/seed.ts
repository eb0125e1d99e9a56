import type { Config } from '../config.js';
import { chunk, mapConcurrently } from '../lib/collections.js';
import { newId } from '../domain/ids.js';
import type { PostRecord, UserRecord } from '../domain/models.js';
import type { Logger } from '../logger.js';
import type { Stores } from '../stores/stores.js';
import type { ClaimedTask } from '../stores/task-queue.js';
import { FanOut, type RunOutcome, type SaveCheckpoint } from '../usecases/fanout.js';
import { Worker } from '../worker/worker.js';
import type { Network } from './network.js';
import type { Progress } from './progress.js';

/**
 * Writes a generated network through the service's own stores and paths: sign-up's
 * transaction per user, the graph store's bulk follow import (one transaction per chunk of
 * edges with their counts), one createPost transaction per post with its fan-out task, the
 * real worker to fan the posts out, and one like transaction per like — so every counter is
 * exact afterwards, exactly as if the network had been built through the API.
 */
export interface SeedSummary {
  users: number;
  follows: number;
  posts: number;
  homeEntries: number;
  likes: number;
  /** Store ids, aligned with the network's users and posts. */
  userIds: string[];
  postIds: string[];
  phasesMs: Record<'users' | 'follows' | 'posts' | 'fanOut' | 'likes', number>;
  totalMs: number;
}

type SeedSettings = Pick<
  Config,
  'fanoutMaxFollowers' | 'hotAuthorFollowers' | 'counterShards' | 'fanoutPageSize' | 'followBackfillPosts' | 'timelineMaxEntries' | 'timelineSizeSampleEvery' | 'queueLeaseMs' | 'queueMaxAttempts'
>;

/** Writes in flight at once: enough to keep DynamoDB busy, few enough not to drown it in retries. */
const CONCURRENCY = 16;
const FOLLOW_CHUNK = 1000;
const GRAPH_USER_CHUNK = 100;
const WORKER_CONCURRENCY = 8;

export class AlreadySeededError extends Error {
  constructor(handle: string) {
    super(`The store already holds a user "${handle}": seed into an empty store (another DATA_DIR or TABLE_PREFIX).`);
    this.name = 'AlreadySeededError';
  }
}

export async function seedNetwork(stores: Stores, network: Network, settings: SeedSettings, progress: Progress, logger: Logger): Promise<SeedSummary> {
  const started = Date.now();
  const [taken] = await stores.users.idsByHandle([network.users[0]!.handle]);
  if (taken) throw new AlreadySeededError(network.users[0]!.handle);

  // Every id is made before anything else: ids carry their (simulated) creation time, and the
  // id clock only moves forward, so an id made at real time first would pull later ones forward.
  const users: UserRecord[] = network.users.map((u) => ({
    id: newId('usr', u.createdAtMs),
    handle: u.handle,
    displayName: u.displayName,
    bio: u.bio,
    interests: u.interests,
    createdAt: new Date(u.createdAtMs).toISOString(),
    postCount: 0,
  }));
  const posts: PostRecord[] = network.posts.map((p) => ({
    id: newId('pst', p.createdAtMs),
    authorId: users[p.author]!.id,
    text: p.text,
    tags: p.tags,
    createdAt: new Date(p.createdAtMs).toISOString(),
    counterShards: network.followerCounts[p.author]! >= settings.hotAuthorFollowers ? settings.counterShards : 1,
  }));

  let phase = progress('users', users.length);
  await mapConcurrently(users, CONCURRENCY, async (user) => {
    await stores.users.create(user);
    phase.tick();
  });
  await mapConcurrently(chunk(users, GRAPH_USER_CHUNK), 4, (part) =>
    stores.graph.upsertUsers(part.map((u) => ({ id: u.id, handle: u.handle, interests: u.interests }))),
  );
  const usersMs = phase.finish();

  phase = progress('follows', network.follows.length);
  for (const part of chunk(network.follows, FOLLOW_CHUNK)) {
    await stores.graph.importFollows(part.map((f) => ({ from: users[f.from]!.id, to: users[f.to]!.id, at: new Date(f.atMs).toISOString() })));
    phase.tick(part.length);
  }
  const followsMs = phase.finish();

  // The same rule as createPost: authors past FANOUT_MAX_FOLLOWERS keep their posts in an outbox.
  const fannedOut = (author: number) => network.followerCounts[author]! <= settings.fanoutMaxFollowers;
  const fanOutTasks = network.posts.filter((p) => fannedOut(p.author)).length;
  const homeEntries = network.posts.reduce((sum, p) => sum + (fannedOut(p.author) ? network.followerCounts[p.author]! + 1 : 1), 0);
  const fanOut = new CountingFanOut(stores, settings);
  const worker = new Worker(
    stores.tasks,
    fanOut,
    { pollMs: 200, leaseMs: settings.queueLeaseMs, concurrency: WORKER_CONCURRENCY, maxAttempts: settings.queueMaxAttempts },
    logger.child({ component: 'seed-worker' }),
  );
  worker.start();
  let postsMs: number;
  let fanOutMs: number;
  try {
    phase = progress('posts', posts.length);
    await mapConcurrently(network.posts, CONCURRENCY, async (p, i) => {
      const post = posts[i]!;
      await stores.posts.create(
        post,
        fannedOut(p.author)
          ? { kind: 'fanOut', task: { id: newId('tsk'), payload: { kind: 'fanOut', postId: post.id, authorId: post.authorId } } }
          : { kind: 'outbox' },
        null,
      );
      worker.nudge();
      phase.tick();
    });
    postsMs = phase.finish();

    phase = progress('fan-out', fanOutTasks);
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

  phase = progress('likes', network.likes.length);
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

/** The service's fan-out, counting the post fan-outs it has finished so that the seed knows when the worker is done. */
class CountingFanOut extends FanOut {
  finished = 0;

  constructor(stores: Stores, settings: SeedSettings) {
    super(stores.timelines, stores.graph, stores.tasks, stores.posts, settings, () => {});
  }

  override async run(task: ClaimedTask, save: SaveCheckpoint, stopping: () => boolean): Promise<RunOutcome> {
    const outcome = await super.run(task, save, stopping);
    if (outcome === 'done' && task.payload.kind === 'fanOut') this.finished += 1;
    return outcome;
  }
}

