import type { CommentRecord, Page, PostRecord, UserRecord } from '../domain/models.js';
import type { CountedPost, PostCounts } from '../stores/counter-store.js';
import type { FollowCounts, FollowPair, IdPage, Relation } from '../stores/graph/graph-store.js';
import { blocksBetween } from './relationships.js';
import type { SkeletonItem, TimelineSkeleton } from './timelines.js';

/**
 * The read path of every list the API pages through, in four named steps (as Bluesky's
 * AppView builds its feeds):
 *
 * 1. skeleton — one read of the list's entries (TimelineUseCases, the graph's follow lists),
 *    each entry carrying what the next step needs before it can fetch;
 * 2. hydration — everything else the page shows, asked for all at once so that it goes out
 *    as one wave of batched lookups (`hydratePosts`, `hydrateUsers`);
 * 3. rules — which hydrated entries the viewer sees (`postRules`, `userRules`): the relations
 *    they need (blocks, mutes) are looked up in the hydration wave, and a page that loses entries
 *    reads further (`fillPage`);
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
  relations(relations: readonly Relation[]): Promise<boolean[]>;
}

/**
 * Whose posts a timeline hides from a signed-in viewer: always those of accounts in a block with
 * the viewer (either way); with `hidesMuted` (home, tag and public timelines) also those of
 * accounts the viewer mutes. Anonymous viewers see everything.
 */
export interface PostRules {
  hidesMuted: boolean;
}

/** The relations that decide whether the viewer sees the content of each of `userIds`: the blocks both ways, and the viewer's mutes when `hidesMuted`. */
export function visibilityRelations(viewerId: string, userIds: readonly string[], hidesMuted: boolean): Relation[] {
  const others = [...new Set(userIds)].filter((id) => id !== viewerId);
  return [...blocksBetween(viewerId, others), ...(hidesMuted ? others.map((id) => ({ kind: 'mutes' as const, from: viewerId, to: id })) : [])];
}

/** Of `userIds`, those whose content `viewerId` does not see: one batched lookup, which hydration has usually made already (then it is cached). */
export async function hiddenUsers(viewerId: string | null, userIds: readonly string[], hidesMuted: boolean, hydrator: Hydrator): Promise<Set<string>> {
  if (viewerId === null) return new Set();
  const relations = visibilityRelations(viewerId, userIds, hidesMuted);
  if (relations.length === 0) return new Set();
  const found = await hydrator.relations(relations);
  return new Set(relations.filter((_, i) => found[i]).map((r) => (r.from === viewerId ? r.to : r.from)));
}

/** What a page shows of each user, from the request's selection: hydration fetches nothing more. */
export interface UserNeeds {
  followCounts: boolean;
  viewerFollows: boolean;
  followsViewer: boolean;
  viewerBlocks: boolean;
  blocksViewer: boolean;
  viewerMutes: boolean;
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
 * else is left to the field that shows it, which asks again and reports its own error. The
 * relations that `rules` need for the authors go out in the same wave (null: left to the rules step).
 */
export async function hydratePosts(
  skeleton: TimelineSkeleton,
  viewerId: string | null,
  needs: PostNeeds,
  hydrator: Hydrator,
  rules: PostRules | null = null,
): Promise<HydratedPost[]> {
  const known = skeleton.items.filter((item): item is SkeletonItem & { authorId: string; counterShards: number } => item.authorId !== null && item.counterShards !== null);
  const related = hydratePostRelations(
    known.map((item) => ({ id: item.postId, authorId: item.authorId, counterShards: item.counterShards })),
    viewerId,
    needs,
    hydrator,
    rules,
  );
  const reposterIds = [...new Set(skeleton.items.flatMap((item) => (item.repostedBy === null ? [] : [item.repostedBy])))];
  const reposters =
    needs.repostedBy && reposterIds.length > 0 ? settled([hydrator.users(reposterIds), hydrateUserRelations(reposterIds, viewerId, needs.repostedBy, hydrator)]) : null;
  // The rules hide a repost entry whose reposter is hidden: its relations join this wave too.
  const reposterRules = rules && reposterIds.length > 0 ? settled([hiddenUsers(viewerId, reposterIds, rules.hidesMuted, hydrator)]) : null;
  const posts = await hydrator.posts(skeleton.items.map((item) => item.postId));
  const fromPosts = posts.filter((post, i): post is PostRecord => post !== null && (skeleton.items[i]!.authorId === null || skeleton.items[i]!.counterShards === null));
  await Promise.all([related, reposters, reposterRules, hydratePostRelations(fromPosts, viewerId, needs, hydrator, rules)]);
  return skeleton.items.map((item, i) => ({ cursor: item.cursor, node: posts[i] ?? null, repostedBy: item.repostedBy }));
}

function hydratePostRelations(
  posts: readonly { id: string; authorId: string; counterShards: number }[],
  viewerId: string | null,
  needs: PostNeeds,
  hydrator: Hydrator,
  rules: PostRules | null,
): Promise<unknown> {
  if (posts.length === 0) return Promise.resolve();
  const authorIds = [...new Set(posts.map((post) => post.authorId))];
  return settled([
    rules ? hiddenUsers(viewerId, authorIds, rules.hidesMuted, hydrator) : null,
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

/** The users' follow counts and the viewer's flags and relations with them, as far as `needs` asks; never fails (the fields report their own errors). */
export function hydrateUserRelations(userIds: readonly string[], viewerId: string | null, needs: UserNeeds, hydrator: Hydrator): Promise<unknown> {
  // Anonymous, the flags are false without a lookup (see the User resolvers).
  const flags = viewerId !== null && userIds.length > 0;
  // Nobody blocks or mutes themselves: no lookup for the viewer's own account. Only the directions shown are asked.
  const others = flags ? userIds.filter((id) => id !== viewerId) : [];
  const relations: Relation[] = [
    ...(needs.viewerBlocks ? others.map((id) => ({ kind: 'blocks' as const, from: viewerId!, to: id })) : []),
    ...(needs.blocksViewer ? others.map((id) => ({ kind: 'blocks' as const, from: id, to: viewerId! })) : []),
    ...(needs.viewerMutes ? others.map((id) => ({ kind: 'mutes' as const, from: viewerId!, to: id })) : []),
  ];
  return settled([
    needs.followCounts ? hydrator.followCounts(userIds) : null,
    flags && needs.viewerFollows ? hydrator.follows(userIds.map((id) => ({ from: viewerId, to: id }))) : null,
    flags && needs.followsViewer ? hydrator.follows(userIds.map((id) => ({ from: id, to: viewerId }))) : null,
    relations.length > 0 ? hydrator.relations(relations) : null,
  ]);
}

/** Waits for every lookup, whatever its outcome: hydration only fills the cache. */
async function settled(lookups: (Promise<unknown> | null)[]): Promise<void> {
  await Promise.allSettled(lookups);
}

/**
 * The rules step for posts: what the viewer sees of a hydrated page, aligned with it (null: not
 * shown). An entry whose post is gone (deleted after its entry was read) is left out, and so is
 * a post whose author, or the reposter that put it there, `rules` hide from the viewer.
 */
export async function postRules(page: HydratedPost[], viewerId: string | null, rules: PostRules, hydrator: Hydrator): Promise<HydratedPost[]> {
  const userIds = page.flatMap((entry) => (entry.node ? [entry.node.authorId, ...(entry.repostedBy === null ? [] : [entry.repostedBy])] : []));
  const hidden = await hiddenUsers(viewerId, userIds, rules.hidesMuted, hydrator);
  const shown = (entry: HydratedPost) => entry.node !== null && !hidden.has(entry.node.authorId) && (entry.repostedBy === null || !hidden.has(entry.repostedBy));
  return page.map((entry) => ({ ...entry, node: shown(entry) ? entry.node : null }));
}

/** The rules step for comments: a comment whose author is in a block with the viewer is left out (null). */
export async function commentRules(page: Hydrated<CommentRecord>[], viewerId: string | null, hydrator: Hydrator): Promise<Hydrated<CommentRecord>[]> {
  const hidden = await hiddenUsers(
    viewerId,
    page.flatMap((entry) => (entry.node ? [entry.node.authorId] : [])),
    false,
    hydrator,
  );
  return page.map((entry) => ({ cursor: entry.cursor, node: entry.node && !hidden.has(entry.node.authorId) ? entry.node : null }));
}

/** An entry the rules kept: its node is there. */
export type Shown<E extends Hydrated<unknown>> = E & { node: NonNullable<E['node']> };

export function isShown<E extends Hydrated<unknown>>(entry: E): entry is Shown<E> {
  return entry.node !== null;
}

/** Skeleton reads a page may add to its first when the rules leave it short. */
export const EXTRA_SKELETON_READS = 3;

/** A page of a list's entries as the skeleton step reads it. */
export interface SkeletonPage<S extends { cursor: string }> {
  items: S[];
  hasNextPage: boolean;
}

/**
 * Pages stay full: when the rules leave out entries of a `size` page, the list is read further
 * after the last entry read (`readAfter`, a page of `size` again), at most EXTRA_SKELETON_READS
 * times, and `shown` (hydration and rules, null for an entry not shown) decides each read's
 * entries. The page ends at the last entry it returns or skipped, so the next page resumes right
 * after it; `hasNextPage` is true while entries remain that may be shown.
 */
export async function fillPage<S extends { cursor: string }, E extends Hydrated<unknown>>(
  size: number,
  firstPage: SkeletonPage<S>,
  readAfter: (cursor: string) => Promise<SkeletonPage<S>>,
  shown: (page: SkeletonPage<S>) => Promise<E[]>,
): Promise<Page<NonNullable<E['node']>> & { items: Shown<E>[] }> {
  const items: Shown<E>[] = [];
  let endCursor: string | null = null;
  let page = firstPage;
  for (let extraReads = 0; ; extraReads++) {
    const entries = await shown(page);
    for (const entry of entries) {
      if (isShown(entry)) {
        // A page already full leaves this entry (shown) for the next page.
        if (items.length === size) return { items, hasNextPage: true, endCursor };
        items.push(entry);
      }
      endCursor = entry.cursor;
    }
    if (items.length === size || !page.hasNextPage || extraReads === EXTRA_SKELETON_READS || endCursor === null) {
      return { items, hasNextPage: page.hasNextPage, endCursor };
    }
    page = await readAfter(endCursor);
  }
}

/** The rules step for users: an entry whose account is gone is left out. */
export function userRules(page: Hydrated<UserRecord>[]): { cursor: string; node: UserRecord }[] {
  return page.filter((entry): entry is { cursor: string; node: UserRecord } => entry.node !== null);
}
