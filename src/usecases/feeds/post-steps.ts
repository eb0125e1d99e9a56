import type { CommentRecord, PostRecord } from '../../domain/models.js';
import type { SkeletonItem, TimelineSkeleton } from '../timelines.js';
import type { Hydrated, Hydrator } from './pipeline.js';
import { type UserNeeds, hydrateUserRelations, settled } from './user-steps.js';
import { hiddenUsers } from './visibility.js';

/**
 * Whose posts a timeline hides from a signed-in viewer: always those of accounts in a block with
 * the viewer (either way); with `hidesMuted` (home, tag and public timelines) also those of
 * accounts the viewer mutes. Anonymous viewers see everything.
 */
export interface PostRules {
  hidesMuted: boolean;
}

/** What a page shows of each post; `author` (`repostedBy`) is null when the author (the reposter of a repost entry) is not shown. */
export interface PostNeeds {
  counts: boolean;
  viewerLiked: boolean;
  viewerReposted: boolean;
  author: UserNeeds | null;
  repostedBy: UserNeeds | null;
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
