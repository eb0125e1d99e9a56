import type { GraphQLResolveInfo } from 'graphql';
import type { CommentRecord, Page } from '../domain/models.js';
import { NOBODY } from '../stores/graph/graph-store.js';
import type { TimelineEntry } from '../stores/timeline-store.js';
import { type Feed, type FeedContext, type SkeletonPage, isShown, runFeed, shownEntries } from '../usecases/feeds/pipeline.js';
import { type HydratedPost, type PostNeeds, type PostPage, type SkeletonItem, toSkeleton } from '../usecases/feeds/post-steps.js';
import type { UserList } from '../usecases/feeds/user-lists.js';
import { hydrateUserRelations } from '../usecases/feeds/user-steps.js';
import type { BlockedAccounts } from '../usecases/relationships.js';
import type { GraphQLContext } from './context.js';
import { hydratorOf } from './loaders.js';
import { childFieldArguments, postEdgeNeeds, postNeeds, selectionTree, showsPage, userListNeeds, userNeeds } from './lookahead.js';
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
  return { viewerId: context.viewerId, hydrator: hydratorOf(context.loaders), graphBudget: context.graphBudget, blocked: blockedAccounts(context) };
}

/** Null in the naive baseline (BATCHING=false), which reads each field on its own, uncached: hydration would only add reads. */
function postNeedsOf(context: GraphQLContext, info: GraphQLResolveInfo): PostNeeds | null {
  return context.feeds.hydrate ? postNeeds(info) : null;
}

export function tagConnection(
  context: GraphQLContext,
  info: GraphQLResolveInfo,
  tag: string,
  first: number | null | undefined,
  after: string | null | undefined,
): Promise<PostConnectionModel> {
  return runFeed(context.useCases.feeds.tag, { tag, first, after, needs: postNeedsOf(context, info) }, feedContext(context));
}

export function publicConnection(
  context: GraphQLContext,
  info: GraphQLResolveInfo,
  first: number | null | undefined,
  after: string | null | undefined,
): Promise<PostConnectionModel> {
  return runFeed(context.useCases.feeds.public, { first, after, needs: postNeedsOf(context, info) }, feedContext(context));
}

/** User.timeline or User.posts, from the skeleton startUserReads started when it did. */
export function userTimelineConnection(context: GraphQLContext, info: GraphQLResolveInfo, field: UserTimeline, userId: string, args: PageArguments): Promise<PostConnectionModel> {
  const timeline = userTimeline(context, field, userId, args, postNeedsOf(context, info));
  const ctx = feedContext(context);
  return timeline.run(
    ctx,
    startedSkeleton(context, field, userId, args, () => timeline.skeleton(ctx)),
  );
}

export function commentConnection(context: GraphQLContext, postId: string, first: number | null | undefined, after: string | null | undefined): Promise<Page<CommentRecord>> {
  return runFeed(context.useCases.feeds.comments, { postId, first, after }, feedContext(context));
}

/** A home timeline's live event as the edge a page would show it, through the same hydration and rules: null when they leave it out. */
export async function postEdge(event: TimelineEntry, context: GraphQLContext, info: GraphQLResolveInfo): Promise<PostEdgeModel | null> {
  const params = { userId: context.viewerId!, args: {}, needs: context.feeds.hydrate ? postEdgeNeeds(info) : null };
  const [entry] = await shownEntries(context.useCases.feeds.home, toSkeleton({ entries: [event], hasNextPage: false }), params, feedContext(context));
  return entry && isShown(entry) ? entry : null;
}

export function searchConnection(
  context: GraphQLContext,
  info: GraphQLResolveInfo,
  args: { query: string; first?: number | null; after?: string | null },
): Promise<UserConnectionModel> {
  const params = { query: args.query, first: args.first, after: args.after, needs: context.feeds.hydrate ? userListNeeds(info) : null };
  return runFeed(context.useCases.feeds.search, params, feedContext(context));
}

export function userListConnection(
  context: GraphQLContext,
  info: GraphQLResolveInfo,
  list: UserList,
  args: { first?: number | null; after?: string | null },
): Promise<UserConnectionModel> {
  const params = { list, first: args.first, after: args.after, pageShown: showsPage(info), needs: context.feeds.hydrate ? userListNeeds(info) : null };
  return runFeed(context.useCases.feeds.userLists, params, feedContext(context));
}

type UserTimeline = 'timeline' | 'posts';

interface PageArguments {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
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
function userTimeline(context: GraphQLContext, field: UserTimeline, userId: string, args: PageArguments, needs: PostNeeds | null): BoundFeed<SkeletonItem, PostPage> {
  const { home, author } = context.useCases.feeds;
  if (field === 'timeline') return bound(home, { userId, args, needs });
  return bound(author, { authorId: userId, first: args.first, after: args.after, includeReposts: args.includeReposts ?? true, needs });
}

const skeletonKey = (field: UserTimeline, userId: string, args: PageArguments) =>
  JSON.stringify([field, userId, args.first ?? null, args.after ?? null, args.last ?? null, args.before ?? null, args.includeReposts ?? true]);

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
