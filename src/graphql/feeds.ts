import type { GraphQLResolveInfo } from 'graphql';
import type { CommentRecord, Page } from '../domain/models.js';
import { NOBODY } from '../stores/graph/graph-store.js';
import type { TimelineEntry } from '../stores/timeline-store.js';
import {
  type Feed,
  type FeedContext,
  type SkeletonPage,
  isShown,
  runFeed,
  shownEntries,
} from '../usecases/feeds/pipeline.js';
import {
  type HydratedPost,
  type PostNeeds,
  type PostPage,
  type PostPageArguments,
  type SkeletonItem,
  toSkeleton,
} from '../usecases/feeds/post-steps.js';
import type { UserList } from '../usecases/feeds/user-lists.js';
import { hydrateUserRelations } from '../usecases/feeds/user-steps.js';
import type { CommentPageArgs } from '../usecases/comments.js';
import type { BlockedAccounts } from '../usecases/relationships.js';
import type { GraphQLContext } from './context.js';
import { hydratorOf } from './loaders.js';
import {
  childFieldArguments,
  postEdgeNeeds,
  postNeeds,
  selectionTree,
  showsPage,
  userListNeeds,
  userNeeds,
} from './lookahead.js';
import type { PostConnectionModel, PostEdgeModel, UserConnectionModel } from './models.js';

/**
 * The GraphQL end of the feeds (src/usecases/feeds/): what the selection shows becomes each feed's
 * needs, skeletons start early (startUserReads), and a feed's page is the connection.
 */

/** The accounts in a block with the request's viewer, read at most once per request. */
export function blockedAccounts(context: GraphQLContext): BlockedAccounts {
  const { viewerId, loaders } = context;
  return async () => (viewerId ? loaders.blockedAccounts.load(viewerId) : NOBODY);
}

export function feedContext(context: GraphQLContext): FeedContext {
  return {
    viewerId: context.viewerId,
    hydrator: hydratorOf(context.loaders),
    graphBudget: context.graphBudget,
    blocked: blockedAccounts(context),
  };
}

/** Null in the naive baseline (BATCHING=false), which reads each field on its own, uncached: hydration would only add reads. */
function postNeedsOf(context: GraphQLContext, info: GraphQLResolveInfo): PostNeeds | null {
  return context.feeds.hydrate ? postNeeds(info) : null;
}

export function tagConnection(
  context: GraphQLContext,
  info: GraphQLResolveInfo,
  tag: string,
  args: PostPageArguments,
): Promise<PostConnectionModel> {
  return runFeed(
    context.useCases.feeds.tag,
    { tag, ...pageOf(args), needs: postNeedsOf(context, info) },
    feedContext(context),
  );
}

export function publicConnection(
  context: GraphQLContext,
  info: GraphQLResolveInfo,
  args: PostPageArguments,
): Promise<PostConnectionModel> {
  return runFeed(
    context.useCases.feeds.public,
    { ...pageOf(args), needs: postNeedsOf(context, info) },
    feedContext(context),
  );
}

/** Only the paging arguments: a feed's params are not a bag of whatever the field takes. */
const pageOf = ({ first, after, last, before }: PostPageArguments): PostPageArguments => ({
  first,
  after,
  last,
  before,
});

/** User.timeline or User.posts, from the skeleton startUserReads started when it did. */
export function userTimelineConnection(
  context: GraphQLContext,
  info: GraphQLResolveInfo,
  field: UserTimeline,
  userId: string,
  args: PageArguments,
): Promise<PostConnectionModel> {
  const timeline = userTimeline(context, field, userId, args, postNeedsOf(context, info));
  const ctx = feedContext(context);
  return timeline.run(
    ctx,
    startedSkeleton(context, field, userId, args, () => timeline.skeleton(ctx)),
  );
}

/** Post.comments (`parent` null) or Comment.replies. */
export function commentConnection(
  context: GraphQLContext,
  postId: string,
  parent: CommentRecord | null,
  args: CommentPageArgs,
): Promise<Page<CommentRecord>> {
  return runFeed(context.useCases.feeds.comments, { postId, parent, args }, feedContext(context));
}

/** A comment the viewer may see: null when there is none, or its author is in a block with the viewer (a tombstone has none). */
export async function visibleComment(context: GraphQLContext, id: string): Promise<CommentRecord | null> {
  // The viewer's blocks (read once per request) beside the comment, not after it.
  const [comment, blocked] = await Promise.all([context.loaders.comment.load(id), blockedAccounts(context)()]);
  if (!comment?.authorId || (comment.authorId !== context.viewerId && blocked.has(comment.authorId))) return null;
  if (!comment.deleted) return comment;
  // A deleted account's tombstone has no author to show: it is left out, as in a thread (CommentFeed.rules).
  const [author] = await hydratorOf(context.loaders).users([comment.authorId]);
  return author ? comment : null;
}

/** Comment.parent: every ancestor loads in one batch (cached for theirs), so a chain of any depth is one wave. */
export async function parentComment(context: GraphQLContext, comment: CommentRecord): Promise<CommentRecord | null> {
  if (comment.ancestorIds.length === 0) return null;
  void context.loaders.comment.loadMany(comment.ancestorIds);
  return visibleComment(context, comment.ancestorIds.at(-1)!);
}

/** A home timeline's live event as the edge a page would show it, through the same hydration and rules: null when they leave it out. */
export async function postEdge(
  event: TimelineEntry,
  context: GraphQLContext,
  info: GraphQLResolveInfo,
): Promise<PostEdgeModel | null> {
  const params = { userId: context.viewerId!, args: {}, needs: context.feeds.hydrate ? postEdgeNeeds(info) : null };
  const [entry] = await shownEntries(
    context.useCases.feeds.home,
    toSkeleton({ entries: [event], hasNextPage: false }),
    params,
    feedContext(context),
  );
  return entry && isShown(entry) ? entry : null;
}

export function searchConnection(
  context: GraphQLContext,
  info: GraphQLResolveInfo,
  args: { query: string; first?: number | null; after?: string | null },
): Promise<UserConnectionModel> {
  const params = {
    query: args.query,
    first: args.first,
    after: args.after,
    needs: context.feeds.hydrate ? userListNeeds(info) : null,
  };
  return runFeed(context.useCases.feeds.search, params, feedContext(context));
}

export function userListConnection(
  context: GraphQLContext,
  info: GraphQLResolveInfo,
  list: UserList,
  args: PostPageArguments,
): Promise<UserConnectionModel> {
  const params = {
    list,
    ...pageOf(args),
    pageShown: showsPage(info),
    needs: context.feeds.hydrate ? userListNeeds(info) : null,
  };
  return runFeed(context.useCases.feeds.userLists, params, feedContext(context));
}

type UserTimeline = 'timeline' | 'posts';

interface PageArguments extends PostPageArguments {
  includeReposts?: boolean | null;
}

/** A feed with its params: its skeleton, to start early, and the whole run. */
interface BoundFeed<S extends { cursor: string }, R> {
  skeleton(ctx: FeedContext): Promise<SkeletonPage<S>>;
  run(ctx: FeedContext, started: Promise<SkeletonPage<S>>): Promise<R>;
}

function bound<P, S extends { cursor: string }, R>(feed: Feed<P, S, HydratedPost, R>, params: P): BoundFeed<S, R> {
  return { skeleton: (ctx) => feed.skeleton(params, ctx), run: (ctx, started) => runFeed(feed, params, ctx, started) };
}

/** User.timeline is the user's home feed, User.posts the author feed. */
function userTimeline(
  context: GraphQLContext,
  field: UserTimeline,
  userId: string,
  args: PageArguments,
  needs: PostNeeds | null,
): BoundFeed<SkeletonItem, PostPage> {
  const { home, author } = context.useCases.feeds;
  if (field === 'timeline') return bound(home, { userId, args, needs });
  return bound(author, { authorId: userId, ...pageOf(args), includeReposts: args.includeReposts ?? true, needs });
}

const skeletonKey = (field: UserTimeline, userId: string, args: PageArguments) =>
  JSON.stringify([
    field,
    userId,
    args.first ?? null,
    args.after ?? null,
    args.last ?? null,
    args.before ?? null,
    args.includeReposts ?? true,
  ]);

/** The skeleton of one of the user's timelines: the one started early (see startUserReads) or a new one. */
function startedSkeleton(
  context: GraphQLContext,
  field: UserTimeline,
  userId: string,
  args: PageArguments,
  read: () => Promise<SkeletonPage<SkeletonItem>>,
): Promise<SkeletonPage<SkeletonItem>> {
  const key = skeletonKey(field, userId, args);
  const started = context.feeds.skeletons.get(key);
  if (started) return started;
  const skeleton = read();
  context.feeds.skeletons.set(key, skeleton);
  return skeleton;
}

/**
 * Starts what the selection shows of the user (follow counts, the viewer's flags, its timelines' skeletons)
 * beside the user's own lookup, so that they go out in the request's first wave; a failed read is reported
 * only by the field that reads it.
 */
export function startUserReads(context: GraphQLContext, info: GraphQLResolveInfo, userId: string): void {
  if (!context.feeds.hydrate) return;
  void hydrateUserRelations([userId], context.viewerId, userNeeds(selectionTree(info, 1)), hydratorOf(context.loaders));
  const ctx = feedContext(context);
  for (const field of ['timeline', 'posts'] as const) {
    let selections: Record<string, unknown>[];
    try {
      selections = childFieldArguments(info, 'User', field);
    } catch {
      // Arguments execution will refuse: the field reports that itself.
      continue;
    }
    for (const args of selections) {
      const timeline = userTimeline(context, field, userId, args as PageArguments, null);
      startedSkeleton(context, field, userId, args as PageArguments, () => timeline.skeleton(ctx)).catch(() => {});
    }
  }
}
