import type { PostRecord, UserRecord } from '../domain/models.js';
import type { CountedPost, PostCounts } from '../stores/counter-store.js';
import type { FollowCounts, FollowPair, IdPage } from '../stores/graph/graph-store.js';
import type { SkeletonItem, TimelineSkeleton } from './timelines.js';

/**
 * The read path of every list the API pages through, in four named steps (as Bluesky's
 * AppView builds its feeds):
 *
 * 1. skeleton — one read of the list's entries (TimelineUseCases, the graph's follow lists),
 *    each entry carrying what the next step needs before it can fetch;
 * 2. hydration — everything else the page shows, asked for all at once so that it goes out
 *    as one wave of batched lookups (`hydratePosts`, `hydrateUsers`);
 * 3. rules — which hydrated entries the viewer sees (`postRules`, `userRules`);
 * 4. presentation — the connection the API returns, built by the GraphQL layer from what
 *    the rules kept; its field resolvers read the hydrated records from the same cache.
 */

/** The lookups hydration makes, batched and cached per request (the GraphQL layer's loaders). */
export interface Hydrator {
  posts(ids: readonly string[]): Promise<(PostRecord | null)[]>;
  users(ids: readonly string[]): Promise<(UserRecord | null)[]>;
  postCounts(posts: readonly CountedPost[]): Promise<PostCounts[]>;
  /** Has the viewer liked each post (all false when anonymous)? */
  viewerLikes(postIds: readonly string[]): Promise<boolean[]>;
  /** Does the viewer repost each post (all false when anonymous)? */
  viewerReposts(postIds: readonly string[]): Promise<boolean[]>;
  followCounts(userIds: readonly string[]): Promise<FollowCounts[]>;
  follows(pairs: readonly FollowPair[]): Promise<boolean[]>;
}

/** What a page shows of each user, from the request's selection: hydration fetches nothing more. */
export interface UserNeeds {
  followCounts: boolean;
  viewerFollows: boolean;
  followsViewer: boolean;
}

/** What a page shows of each post; `author` (`repostedBy`) is null when the author (the reposter of a repost entry) is not shown. */
export interface PostNeeds {
  counts: boolean;
  viewerLiked: boolean;
  viewerReposted: boolean;
  author: UserNeeds | null;
  repostedBy: UserNeeds | null;
}

export interface Hydrated<T> {
  cursor: string;
  /** Null when the entry's record is gone (deleted after the entry was read). */
  node: T | null;
}

/** A post timeline's entry: its reason too, the account whose repost put it there (null for an original). */
export interface HydratedPost extends Hydrated<PostRecord> {
  repostedBy: string | null;
}

/**
 * Hydrates a page of posts in one wave: the posts, and from what the entries carry, their
 * authors, counters, the viewer's likes and reposts, the reposters of repost entries and the
 * authors' and reposters' follow counts and flags, all asked in the same tick. Entries written before they carried their author and counter shards get those
 * from their post, one wave later. Only the posts are required: a failed lookup of anything
 * else is left to the field that shows it, which asks again and reports its own error.
 */
export async function hydratePosts(skeleton: TimelineSkeleton, viewerId: string | null, needs: PostNeeds, hydrator: Hydrator): Promise<HydratedPost[]> {
  const known = skeleton.items.filter((item): item is SkeletonItem & { authorId: string; counterShards: number } => item.authorId !== null && item.counterShards !== null);
  const related = hydratePostRelations(
    known.map((item) => ({ id: item.postId, authorId: item.authorId, counterShards: item.counterShards })),
    viewerId,
    needs,
    hydrator,
  );
  const reposterIds = [...new Set(skeleton.items.flatMap((item) => (item.repostedBy === null ? [] : [item.repostedBy])))];
  const reposters = needs.repostedBy && reposterIds.length > 0 ? settled([hydrator.users(reposterIds), hydrateUserRelations(reposterIds, viewerId, needs.repostedBy, hydrator)]) : null;
  const posts = await hydrator.posts(skeleton.items.map((item) => item.postId));
  const fromPosts = posts.filter((post, i): post is PostRecord => post !== null && (skeleton.items[i]!.authorId === null || skeleton.items[i]!.counterShards === null));
  await Promise.all([related, reposters, hydratePostRelations(fromPosts, viewerId, needs, hydrator)]);
  return skeleton.items.map((item, i) => ({ cursor: item.cursor, node: posts[i] ?? null, repostedBy: item.repostedBy }));
}

function hydratePostRelations(
  posts: readonly { id: string; authorId: string; counterShards: number }[],
  viewerId: string | null,
  needs: PostNeeds,
  hydrator: Hydrator,
): Promise<unknown> {
  if (posts.length === 0) return Promise.resolve();
  const authorIds = [...new Set(posts.map((post) => post.authorId))];
  return settled([
    needs.counts ? hydrator.postCounts(posts.map((post) => ({ id: post.id, counterShards: post.counterShards }))) : null,
    needs.viewerLiked ? hydrator.viewerLikes(posts.map((post) => post.id)) : null,
    needs.viewerReposted ? hydrator.viewerReposts(posts.map((post) => post.id)) : null,
    needs.author ? hydrator.users(authorIds) : null,
    needs.author ? hydrateUserRelations(authorIds, viewerId, needs.author, hydrator) : null,
  ]);
}

/** Hydrates a page of users (a follow list) in one wave: the users and their follow counts and flags. */
export async function hydrateUsers(page: IdPage, viewerId: string | null, needs: UserNeeds, hydrator: Hydrator): Promise<Hydrated<UserRecord>[]> {
  const ids = page.items.map((item) => item.id);
  const related = hydrateUserRelations(ids, viewerId, needs, hydrator);
  const users = await hydrator.users(ids);
  await related;
  return page.items.map((item, i) => ({ cursor: item.cursor, node: users[i] ?? null }));
}

function hydrateUserRelations(userIds: readonly string[], viewerId: string | null, needs: UserNeeds, hydrator: Hydrator): Promise<unknown> {
  // Anonymous, the flags are false without a lookup (see the User resolvers).
  const flags = viewerId !== null && userIds.length > 0;
  return settled([
    needs.followCounts ? hydrator.followCounts(userIds) : null,
    flags && needs.viewerFollows ? hydrator.follows(userIds.map((id) => ({ from: viewerId, to: id }))) : null,
    flags && needs.followsViewer ? hydrator.follows(userIds.map((id) => ({ from: id, to: viewerId }))) : null,
  ]);
}

/** Waits for every lookup, whatever its outcome: hydration only fills the cache. */
async function settled(lookups: (Promise<unknown> | null)[]): Promise<void> {
  await Promise.allSettled(lookups);
}

/** An entry the rules kept. */
export interface ShownPost {
  cursor: string;
  node: PostRecord;
  repostedBy: string | null;
}

/**
 * The rules step for posts: what the viewer sees of a hydrated page. Today an entry whose post
 * is gone (deleted after its entry was read) is left out; this is where blocked and muted
 * authors will be, and — each entry carries its reason — blocked and muted reposters.
 */
export function postRules(page: HydratedPost[]): ShownPost[] {
  return page.filter((entry): entry is ShownPost => entry.node !== null);
}

/** The rules step for users: an entry whose account is gone is left out. */
export function userRules(page: Hydrated<UserRecord>[]): { cursor: string; node: UserRecord }[] {
  return page.filter((entry): entry is { cursor: string; node: UserRecord } => entry.node !== null);
}
