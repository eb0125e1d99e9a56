import type { Config } from '../config.js';
import { idFrom } from '../domain/ids.js';
import { indexPrefixes, termsOf } from '../domain/search-terms.js';
import { chunk } from '../lib/collections.js';
import type { PostRecord, UserRecord } from '../domain/models.js';
import type { Stores } from '../stores/stores.js';
import type { HomeEntry } from '../stores/timeline-store.js';
import { HomeRetention } from '../usecases/home-retention.js';
import { type PostPlacement, type PostSettings, placePost } from '../usecases/posts.js';
import type { Network } from './network.js';
import type { Progress } from './progress.js';
import { Random } from './random.js';

/**
 * Writes a generated network with the stores' bulk imports: everything the service's own
 * paths would have left — counts, counters, outboxes and home timelines as fan-out fills
 * them — is computed here from the network, and each store writes its items with the
 * engine's fastest bulk write. The item shapes come from the stores' own builders, shared
 * with their normal write paths, and posts are placed by the rules createPost uses
 * (`placePost`). `seedThroughService` writes the same network through the service's paths,
 * for comparison.
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
  /** Duration of each phase, in the order they ran. */
  phasesMs: Record<string, number>;
  totalMs: number;
}

export class AlreadySeededError extends Error {
  constructor(handle: string) {
    super(`The store already holds a user "${handle}": seed into an empty store (another DATA_DIR or TABLE_PREFIX).`);
    this.name = 'AlreadySeededError';
  }
}

/** Keeps the ids' random stream apart from the network's. */
const ID_SALT = 0x1d5a17;

/** The network's users and posts as records (users with postCount 0), each post placed as createPost would place it. */
export interface SeedRecords {
  users: UserRecord[];
  posts: PostRecord[];
  placements: PostPlacement[];
}

/**
 * Refuses a store that already holds the network (unless resuming), then makes the records. Ids
 * carry their simulated creation time and a random part drawn from the network's seed, so that
 * a resumed seed writes the same items again.
 */
export async function prepareSeed(
  stores: Stores,
  network: Network,
  settings: PostSettings,
  resuming = false,
): Promise<SeedRecords> {
  if (!resuming) {
    const [taken] = await stores.users.idsByHandle([network.users[0]!.handle]);
    if (taken) throw new AlreadySeededError(network.users[0]!.handle);
  }
  const random = new Random(network.seed ^ ID_SALT);
  const next = () => random.next();
  const users: UserRecord[] = network.users.map((u) => ({
    id: idFrom('usr', u.createdAtMs, next),
    handle: u.handle,
    displayName: u.displayName,
    bio: u.bio,
    interests: u.interests,
    createdAt: new Date(u.createdAtMs).toISOString(),
    postCount: 0,
    tokenGeneration: 0,
  }));
  // Follows are written before posts, so every post sees its author's final follower count.
  const placements = network.posts.map((p) => placePost(network.followerCounts[p.author]!, settings));
  const posts: PostRecord[] = network.posts.map((p, i) => ({
    id: idFrom('pst', p.createdAtMs, next),
    authorId: users[p.author]!.id,
    text: p.text,
    tags: p.tags,
    createdAt: new Date(p.createdAtMs).toISOString(),
    mentionIds: [],
    counterShards: placements[i]!.counterShards,
  }));
  return { users, posts, placements };
}

export function followEdges(network: Network, users: readonly UserRecord[]) {
  return network.follows.map((f) => ({
    from: users[f.from]!.id,
    to: users[f.to]!.id,
    at: new Date(f.atMs).toISOString(),
  }));
}

/** Where a seed records the parts it has written, so that an interrupted seed can go on from there. */
export interface SeedCheckpoint {
  /** Parts of `stage` that earlier runs wrote. */
  partsDone(stage: string): number;
  /** Records that the first `parts` parts of `stage` are written. */
  save(stage: string, parts: number): void;
}

export interface SeedOptions {
  checkpoint?: SeedCheckpoint;
  /** Writes again what `checkpoint` does not record as written (every write is a put of a computed item, so a repeat changes nothing). */
  resuming?: boolean;
  /** About how many items a part writes: an interrupted seed writes again at most the part it was in. */
  partItems?: number;
}

export const PART_ITEMS = 10_000;

/** A stretch of a stage written and checkpointed as a whole. */
interface Part {
  units: number;
  write(tick: (n: number) => void): Promise<unknown>;
}

interface SeedStage {
  name: string;
  /** About how many items a unit is in the DynamoDB stores: for the overall progress and ETA only. */
  weight: number;
  parts: Part[];
}

const unitsOf = (parts: readonly Part[]) => parts.reduce((sum, p) => sum + p.units, 0);

/** A stage of `records`, in parts of about `partItems` items. */
function stageOf<T>(
  name: string,
  weight: number,
  records: readonly T[],
  partItems: number,
  write: (part: T[], tick: (n: number) => void) => Promise<unknown>,
): SeedStage {
  const parts = chunk(records, Math.max(1, Math.floor(partItems / weight))).map((part): Part => ({
    units: part.length,
    write: (tick) => write(part, tick),
  }));
  return { name, weight, parts };
}

export async function seedNetwork(
  stores: Stores,
  network: Network,
  settings: PostSettings & Pick<Config, 'homeRetentionDays'>,
  progress: Progress,
  options: SeedOptions = {},
): Promise<SeedSummary> {
  const started = Date.now();
  const { checkpoint, partItems = PART_ITEMS } = options;
  const { users, posts, placements } = await prepareSeed(stores, network, settings, options.resuming);
  // Home timelines as they are when the network's history ends: its last HOME_RETENTION_DAYS.
  const retention = new HomeRetention(settings.homeRetentionDays, () => network.endMs);

  // What createPost, like and fan-out would have counted and copied, from the same network.
  const postCounts = new Array<number>(users.length).fill(0);
  for (const p of network.posts) postCounts[p.author]! += 1;
  const likeCounts = new Array<number>(posts.length).fill(0);
  for (const like of network.likes) likeCounts[like.post]! += 1;
  const followers: number[][] = users.map(() => []);
  for (const f of network.follows) followers[f.to]!.push(f.from);
  // Every post within the retention is in its author's own home timeline, and its author's followers' when the
  // author is fanned out.
  const horizon = retention.horizon();
  const timelines: HomeEntry[][] = users.map(() => []);
  network.posts.forEach((p, i) => {
    const post = posts[i]!;
    if (post.id < horizon) return;
    for (const reader of [p.author, ...(placements[i]!.fanOut ? followers[p.author]! : [])]) {
      timelines[reader]!.push({
        userId: users[reader]!.id,
        postId: post.id,
        authorId: post.authorId,
        counterShards: post.counterShards,
        expiresAt: retention.expiresAt(post.id),
      });
    }
  });
  const homeEntries = timelines.reduce((sum, t) => sum + t.length, 0);

  const importedPosts = posts.map((post, i) => ({ post, outbox: !placements[i]!.fanOut, likeCount: likeCounts[i]! }));
  // A post's counts are on its item unless it has separate shards (counterShardItems).
  const shardItems = (shards: number) => (shards > 1 ? shards : 0);
  const postItems = importedPosts.reduce(
    (sum, p) => sum + 3 + p.post.tags.length + (p.outbox ? 1 : 0) + shardItems(p.post.counterShards),
    0,
  );
  // A user is its handle claim, its profile and an entry per prefix of each search term.
  const userItems = users.reduce(
    (sum, u) => sum + 2 + termsOf(u).reduce((n, term) => n + indexPrefixes(term).length, 0),
    0,
  );
  const stages: SeedStage[] = [
    stageOf(
      'users',
      userItems / Math.max(1, users.length),
      users.map((u, i) => ({ ...u, postCount: postCounts[i]! })),
      partItems,
      (part, tick) => stores.users.importUsers(part, tick),
    ),
    {
      // Each user's follow counts sum over all the edges: one part.
      name: 'follows',
      weight: 3 + users.length / Math.max(1, network.follows.length),
      parts: [
        {
          units: network.follows.length,
          write: (tick) =>
            stores.graph.importGraph(
              users.map((u) => ({ id: u.id, handle: u.handle, interests: u.interests })),
              followEdges(network, users),
              tick,
            ),
        },
      ],
    },
    stageOf('posts', postItems / Math.max(1, posts.length), importedPosts, partItems, (part, tick) =>
      stores.posts.importPosts(part, tick),
    ),
    {
      // A tag's counts sum over every post: one part.
      name: 'tag counts',
      weight: 0.1,
      parts: [
        {
          units: posts.length,
          write: async (tick) => {
            await stores.posts.importTagCounts(posts, network.endMs);
            tick(posts.length);
          },
        },
      ],
    },
    stageOf(
      'likes',
      3,
      network.likes.map((like) => ({
        postId: posts[like.post]!.id,
        userId: users[like.user]!.id,
        counterShards: posts[like.post]!.counterShards,
        atMs: network.endMs,
      })),
      partItems,
      (part, tick) => stores.counters.importLikes(part, tick),
    ),
    {
      name: 'timelines',
      weight: 1,
      parts: timelineParts(timelines, partItems).map((part) => ({
        units: part.reduce((sum, t) => sum + t.length, 0),
        write: (tick) => stores.timelines.importHomeTimelines(part.flat(), tick),
      })),
    },
  ];

  const partsDone = (stage: SeedStage) => Math.min(stage.parts.length, checkpoint?.partsDone(stage.name) ?? 0);
  progress.plan(
    stages.map((s) => ({
      name: s.name,
      units: unitsOf(s.parts),
      weight: s.weight,
      done: unitsOf(s.parts.slice(0, partsDone(s))),
    })),
  );
  const phasesMs: Record<string, number> = {};
  for (const stage of stages) {
    const skipped = partsDone(stage);
    const phase = progress.stage(stage.name, unitsOf(stage.parts), unitsOf(stage.parts.slice(0, skipped)));
    for (let i = skipped; i < stage.parts.length; i++) {
      await stage.parts[i]!.write((n) => phase.tick(n));
      checkpoint?.save(stage.name, i + 1);
    }
    phasesMs[stage.name] = phase.finish();
  }

  return {
    users: users.length,
    follows: network.follows.length,
    posts: posts.length,
    homeEntries,
    likes: network.likes.length,
    userIds: users.map((u) => u.id),
    postIds: posts.map((p) => p.id),
    phasesMs,
    totalMs: Date.now() - started,
  };
}

/** Consecutive timelines, about `partItems` entries a part. */
function timelineParts(timelines: readonly HomeEntry[][], partItems: number): HomeEntry[][][] {
  const parts: HomeEntry[][][] = [];
  let part: HomeEntry[][] = [];
  let items = 0;
  for (const timeline of timelines) {
    if (timeline.length === 0) continue;
    part.push(timeline);
    items += timeline.length;
    if (items >= partItems) {
      parts.push(part);
      part = [];
      items = 0;
    }
  }
  if (part.length > 0) parts.push(part);
  return parts;
}
