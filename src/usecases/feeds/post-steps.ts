import { encodeCursor } from '../../domain/cursor.js';
import { idKind } from '../../domain/ids.js';
import type { Page, PostRecord } from '../../domain/models.js';
import type { EntryPage, ListRead, TimelineEntry } from '../../stores/timeline-store.js';
import type { FeedContext, Hydrated, Hydrator, Shown, ShownPage, SkeletonPage } from './pipeline.js';
import { type TwoWayArgs, twoWayPageArgs } from '../paging.js';
import { mergeNewestFirst, mergeOldestFirst } from './timeline-merge.js';
import { type UserNeeds, hydrateUserRelations, settled } from './user-steps.js';
import { hiddenUsers } from './visibility.js';

/**
 * The steps the post feeds (home, author, tag, public) share. A cursor is the last feed position of a
 * page: positions are time-ordered, so entries written during a walk sort before it and never shift it.
 */

/** One entry of a post feed's skeleton: its cursor, its post, and what hydrating the post needs (null: look it up). */
export interface SkeletonItem extends TimelineEntry {
  cursor: string;
}

export type TimelineSkeleton = SkeletonPage<SkeletonItem>;

export function toSkeleton(page: EntryPage): TimelineSkeleton {
  return {
    items: page.entries.map((entry) => ({ ...entry, cursor: encodeCursor(entry.position) })),
    hasNextPage: page.hasNextPage,
  };
}

/** A post feed's page: forwards (`first`/`after`, older posts) or backwards (`last`/`before`, newer posts), not both. */
export type PostPageArguments = TwoWayArgs;

/** The read a page asks of its lists. */
export const listRead = (args: PostPageArguments, isCursor: (value: unknown) => value is string): ListRead =>
  twoWayPageArgs(args, isCursor);

/** A page of merged lists (see mergeNewestFirst): backwards, the `last` entries nearest the cursor, newest first, and whether newer remain. */
export function mergedSkeleton(lists: readonly TimelineEntry[][], read: ListRead): TimelineSkeleton {
  if (!('last' in read)) return toSkeleton(mergeNewestFirst(lists, read.first));
  const page = mergeOldestFirst(lists, read.last);
  return { ...toSkeleton({ entries: page.entries, hasNextPage: false }), hasPreviousPage: page.hasMore };
}

/** A cursor of a list without reposts (tag, public) is a post id. */
export const isPostId = (value: unknown): value is string => typeof value === 'string' && idKind(value) === 'pst';

/** Posts of accounts in a block with the viewer are always hidden; with `hidesMuted`, those of accounts it mutes too. */
export interface PostRules {
  hidesMuted: boolean;
}

/** Home, tag and public timelines hide muted authors; a profile (the author feed) hides only blocks. */
export const WITH_MUTES: PostRules = { hidesMuted: true };
export const BLOCKS_ONLY: PostRules = { hidesMuted: false };

/** What a page shows of each post; `author` (`repostedBy`) is null when the author (the reposter of a repost entry) is not shown. */
export interface PostNeeds {
  counts: boolean;
  viewerLiked: boolean;
  viewerReposted: boolean;
  author: UserNeeds | null;
  repostedBy: UserNeeds | null;
}

const NO_POST_NEEDS: PostNeeds = {
  counts: false,
  viewerLiked: false,
  viewerReposted: false,
  author: null,
  repostedBy: null,
};

/** A post timeline's entry: its reason too, the account whose repost put it there (null for an original). */
export interface HydratedPost extends Hydrated<PostRecord> {
  repostedBy: string | null;
  /** The post's other reasons (see TimelineEntry.alsoBy): the rules show one of them when `repostedBy` is hidden. */
  alsoBy: readonly (string | null)[];
}

/** Every reposter an entry may show: the one it shows, then those the rules fall back on. */
const reposterIdsOf = (entry: { repostedBy: string | null; alsoBy?: readonly (string | null)[] }) =>
  [entry.repostedBy, ...(entry.alsoBy ?? [])].filter((id): id is string => id !== null);

/**
 * The posts and, from what the entries carry, everything `needs` shows of them and the relations
 * `rules` need, asked in one tick. Only the posts are required: any other failed lookup is left to
 * the field that shows it. With `needs` null (BATCHING=false) only the posts are fetched.
 */
export async function hydratePosts(
  skeleton: TimelineSkeleton,
  ctx: FeedContext,
  needs: PostNeeds | null,
  rules: PostRules,
): Promise<HydratedPost[]> {
  const { viewerId, hydrator } = ctx;
  const [shows, prefetched] = needs ? [needs, rules] : [NO_POST_NEEDS, null];
  const known = skeleton.items.filter(
    (item): item is SkeletonItem & { authorId: string; counterShards: number } =>
      item.authorId !== null && item.counterShards !== null,
  );
  const related = hydratePostRelations(
    known.map((item) => ({ id: item.postId, authorId: item.authorId, counterShards: item.counterShards })),
    viewerId,
    shows,
    hydrator,
    prefetched,
  );
  const reposterIds = [...new Set(skeleton.items.flatMap(reposterIdsOf))];
  const reposters =
    shows.repostedBy && reposterIds.length > 0
      ? settled([hydrator.users(reposterIds), hydrateUserRelations(reposterIds, viewerId, shows.repostedBy, hydrator)])
      : null;
  // The rules hide a repost entry whose reposter is hidden: its relations join this wave too.
  const reposterRules =
    prefetched && reposterIds.length > 0
      ? settled([hiddenUsers(viewerId, reposterIds, prefetched.hidesMuted, hydrator)])
      : null;
  const posts = await hydrator.posts(skeleton.items.map((item) => item.postId));
  const fromPosts = posts.filter(
    (post, i): post is PostRecord =>
      post !== null && (skeleton.items[i]!.authorId === null || skeleton.items[i]!.counterShards === null),
  );
  await Promise.all([
    related,
    reposters,
    reposterRules,
    hydratePostRelations(fromPosts, viewerId, shows, hydrator, prefetched),
  ]);
  return skeleton.items.map((item, i) => ({
    cursor: item.cursor,
    node: posts[i] ?? null,
    repostedBy: item.repostedBy,
    alsoBy: item.alsoBy ?? [],
  }));
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
    needs.counts
      ? hydrator.postCounts(posts.map((post) => ({ id: post.id, counterShards: post.counterShards })))
      : null,
    needs.viewerLiked ? hydrator.viewerLikes(posts.map((post) => post.id)) : null,
    needs.viewerReposted ? hydrator.viewerReposts(posts.map((post) => post.id)) : null,
    needs.author ? hydrator.users(authorIds) : null,
    needs.author ? hydrateUserRelations(authorIds, viewerId, needs.author, hydrator) : null,
  ]);
}

/**
 * No post that is gone, and none whose author `rules` hide from the viewer. A repost entry whose reposter they hide
 * shows another of the post's reasons (the original first) if one is left, and is hidden when none is.
 */
export async function postRules(page: HydratedPost[], ctx: FeedContext, rules: PostRules): Promise<HydratedPost[]> {
  const userIds = page.flatMap((entry) => (entry.node ? [entry.node.authorId, ...reposterIdsOf(entry)] : []));
  const hidden = await hiddenUsers(ctx.viewerId, userIds, rules.hidesMuted, ctx.hydrator);
  return page.map((entry) => {
    const reason =
      entry.node === null || hidden.has(entry.node.authorId)
        ? undefined
        : [entry.repostedBy, ...entry.alsoBy].find((id) => id === null || !hidden.has(id));
    return reason === undefined ? { ...entry, node: null } : { ...entry, repostedBy: reason };
  });
}

/** A post feed's page: the entries the rules kept, each with its reason. */
export type PostPage = Page<PostRecord> & { items: Shown<HydratedPost>[] };

/** A backward page (pull-to-refresh) starts where its read did, so that one the rules emptied still leads on. */
export function postPage({ read, ...page }: ShownPage<SkeletonItem, HydratedPost>): PostPage {
  return read.hasPreviousPage === undefined
    ? page
    : { ...page, hasPreviousPage: read.hasPreviousPage, startCursor: read.items[0]?.cursor ?? null };
}
