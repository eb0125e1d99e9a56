import DataLoader from 'dataloader';
import type { CommentRecord, Page, PostRecord, UserRecord } from '../domain/models.js';
import { toPage } from '../usecases/comments.js';
import type { CountedPost, PostCounts } from '../stores/counter-store.js';
import type { FanOutProgress } from '../stores/fanout-progress-store.js';
import type { NotificationGroup } from '../stores/notification-store.js';
import type { Excluded, FollowCounts, FollowPair, ReadBudget, Relation } from '../stores/graph/graph-store.js';
import type { Stores } from '../stores/stores.js';
import type { Hydrator } from '../usecases/feeds/pipeline.js';

/** The backend's limit for one batched read (BatchGetItem takes 100 keys). */
export const MAX_BATCH = 100;

/**
 * Whether this request's reads must be strongly consistent. A mutation's payload is read
 * right after its writes, and must show them; queries read eventually consistent data,
 * at half the capacity. Set once the operation is known (see the consistency plugin).
 */
export interface ReadConsistency {
  strong: boolean;
}

/**
 * Per-request DataLoaders, so a page of 20 or 100 items costs the same few backend calls. With `batching` off,
 * each lookup is its own uncached call: the benchmark's naive baseline.
 */
export function createLoaders(
  stores: Stores,
  viewerId: string | null,
  reads: ReadConsistency,
  { batching, graphBudget }: { batching: boolean; graphBudget: ReadBudget },
) {
  const batched = batching ? { maxBatchSize: MAX_BATCH } : { batch: false, cache: false };
  return {
    user: new DataLoader<string, UserRecord | null>(
      (ids) => stores.users.getMany(ids, { consistent: reads.strong }),
      batched,
    ),
    /** User id → follower and following counts, consistent as the request's other reads (so a page's join its hydration call). */
    followCounts: new DataLoader<string, FollowCounts>(
      (ids) => stores.graph.counts(ids, graphBudget, { consistent: reads.strong }),
      batched,
    ),
    /** Does `from` follow `to`? viewerFollows and followsViewer of a whole page share one graph call. */
    follows: new DataLoader<FollowPair, boolean, string>((pairs) => stores.graph.follows(pairs, graphBudget), {
      ...batched,
      cacheKeyFn: (pair) => `${pair.from}>${pair.to}`,
    }),
    /** Does the block or mute exist? The flags and the rules step of a page share one graph call, with the follow flags when they can. */
    relations: new DataLoader<Relation, boolean, string>(
      (relations) => stores.graph.relations(relations, graphBudget),
      {
        ...batched,
        cacheKeyFn: (relation) => `${relation.kind}:${relation.from}>${relation.to}`,
      },
    ),
    /** User id → every account in a block with it, either way: read once per request for the viewer, what the graph queries leave out. */
    blockedAccounts: new DataLoader<string, Excluded>(
      (ids) =>
        Promise.all(ids.map(async (id) => new Set(await stores.graph.relatedEitherWay('blocks', id, graphBudget)))),
      batched,
    ),
    userIdByHandle: new DataLoader<string, string | null>((handles) => stores.users.idsByHandle(handles), batched),
    /** A timeline page's posts in one batch; strongly consistent in mutations, which read what they just wrote. */
    post: new DataLoader<string, PostRecord | null>(
      (ids) => stores.posts.getMany(ids, { consistent: reads.strong }),
      batched,
    ),
    comment: new DataLoader<string, CommentRecord | null>(
      (ids) => stores.posts.getComments(ids, { consistent: reads.strong }),
      batched,
    ),
    /** The first page of a comment's replies: those of one tick's comments are read together, a Query per post and depth. */
    firstReplies: new DataLoader<{ parent: CommentRecord; first: number }, Page<CommentRecord>, string>(
      async (asked) => {
        const pages = new Map<string, Page<CommentRecord>>();
        for (const first of new Set(asked.map((ask) => ask.first))) {
          const parents = asked.filter((ask) => ask.first === first).map((ask) => ask.parent);
          (await stores.posts.firstReplies(parents, first)).forEach((page, i) =>
            pages.set(`${parents[i]!.id}|${first}`, toPage(page)),
          );
        }
        return asked.map((ask) => pages.get(`${ask.parent.id}|${ask.first}`)!);
      },
      { ...batched, cacheKeyFn: (ask) => `${ask.parent.id}|${ask.first}` },
    ),
    /** Keyed by post (for its shard count), cached by post id. */
    postCounts: new DataLoader<CountedPost, PostCounts, string>(
      (posts) => stores.counters.countsOf(posts, { consistent: reads.strong }),
      {
        ...batched,
        cacheKeyFn: (post) => post.id,
      },
    ),
    /** A notification group by its recipient and key (`node(id:)` of a notification). */
    notificationGroup: new DataLoader<{ recipientId: string; groupKey: string }, NotificationGroup | null, string>(
      (refs) => stores.notifications.groupsByKey(refs),
      {
        ...batched,
        cacheKeyFn: (ref) => `${ref.recipientId}|${ref.groupKey}`,
      },
    ),
    /** Post id → how far its fan-out has got (Post.fanOut). */
    fanOutProgress: new DataLoader<string, FanOutProgress | null>(
      (postIds) => stores.fanOutProgress.getMany(postIds),
      batched,
    ),
    /** Post id → has the viewer liked it (false when anonymous, without asking the store). */
    viewerHasLiked: new DataLoader<string, boolean>(
      async (postIds) =>
        viewerId
          ? stores.counters.hasLiked(postIds.map((postId) => ({ postId, userId: viewerId })))
          : postIds.map(() => false),
      batched,
    ),
    /** Post id → does the viewer repost it (false when anonymous, without asking the store). */
    viewerHasReposted: new DataLoader<string, boolean>(
      async (postIds) =>
        viewerId
          ? stores.reposts.hasReposted(
              postIds.map((postId) => ({ postId, userId: viewerId })),
              { consistent: reads.strong },
            )
          : postIds.map(() => false),
      batched,
    ),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;

/** The feed pipeline's hydration lookups, through the request's loaders: batched with every other lookup of the tick, and cached for the field resolvers. */
export function hydratorOf(loaders: Loaders): Hydrator {
  return {
    posts: (ids) => loadAll(loaders.post, ids),
    users: (ids) => loadAll(loaders.user, ids),
    postCounts: (posts) => loadAll(loaders.postCounts, posts),
    viewerLikes: (postIds) => loadAll(loaders.viewerHasLiked, postIds),
    viewerReposts: (postIds) => loadAll(loaders.viewerHasReposted, postIds),
    followCounts: (userIds) => loadAll(loaders.followCounts, userIds),
    follows: (pairs) => loadAll(loaders.follows, pairs),
    relations: (relations) => loadAll(loaders.relations, relations),
    firstReplies: (parent, first) => loaders.firstReplies.load({ parent, first }),
  };
}

/** `loadMany` in one batch, aligned with `keys`, rethrowing the first failed load instead of returning it. */
export async function loadAll<K, V>(
  loader: DataLoader<K, V, string> | DataLoader<K, V>,
  keys: readonly K[],
): Promise<V[]> {
  return (await loader.loadMany(keys)).map((value) => {
    if (value instanceof Error) throw value;
    return value;
  });
}
