import type { GraphQLResolveInfo } from 'graphql';
import type { CommentRecord, Page } from '../domain/models.js';
import { pageSize } from '../domain/validation.js';
import type { IdPage } from '../stores/graph/graph-store.js';
import { type Feed, type FeedContext, type SkeletonPage, fillPage, isShown, runFeed, shownEntries } from '../usecases/feeds/pipeline.js';
import { type HydratedPost, type PostNeeds, type PostPage, type SkeletonItem, commentRules, toSkeleton } from '../usecases/feeds/post-steps.js';
import { type UserNeeds, hydrateUserRelations, hydrateUsers, userRules } from '../usecases/feeds/user-steps.js';
import type { TimelineEntry } from '../stores/timeline-store.js';
import type { GraphQLContext } from './context.js';
import { hydratorOf } from './loaders.js';
import { childFieldArguments, postEdgeNeeds, postNeeds, selectionTree, userListNeeds, userNeeds } from './lookahead.js';
import type { PostConnectionModel, PostEdgeModel, UserConnectionModel } from './models.js';

/**
 * The GraphQL end of the feed pipeline (see usecases/feeds/pipeline.ts): the skeleton's start,
 * hydration of what the selection shows, the rules, and presentation as a connection.
 */

const NO_USER_NEEDS: UserNeeds = { followCounts: false, viewerFollows: false, followsViewer: false, viewerBlocks: false, blocksViewer: false, viewerMutes: false };

/** Presentation: a page of what the rules kept, starting and ending where the skeleton did (so that a page that lost entries still leads on). */
function present<I extends { cursor: string }>(
  items: I[],
  skeleton: { items: { cursor: string }[]; hasNextPage: boolean; hasPreviousPage?: boolean },
): Omit<Page<unknown>, 'items'> & { items: I[] } {
  return {
    items,
    hasNextPage: skeleton.hasNextPage,
    endCursor: skeleton.items.at(-1)?.cursor ?? null,
    hasPreviousPage: skeleton.hasPreviousPage,
    startCursor: skeleton.items[0]?.cursor ?? null,
  };
}

/** The feeds' view of the request: its viewer and its loaders. */
function feedContext(context: GraphQLContext): FeedContext {
  return { viewerId: context.viewerId, hydrator: hydratorOf(context.loaders) };
}

/** What each post of the page shows; null in the naive baseline (BATCHING=false), which reads each field on its own, uncached. */
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

/** User.timeline or User.posts, from the skeleton started early when startUserReads did. */
export function userTimelineConnection(context: GraphQLContext, info: GraphQLResolveInfo, field: UserTimeline, userId: string, args: PageArguments): Promise<PostConnectionModel> {
  const timeline = userTimeline(context, field, userId, args, postNeedsOf(context, info));
  const ctx = feedContext(context);
  return timeline.run(
    ctx,
    startedSkeleton(context, field, userId, args, () => timeline.skeleton(ctx)),
  );
}

/** A post's comments, oldest first, through the rules (no comment of an account in a block with the viewer), read further while they leave the page short. */
export async function commentConnection(context: GraphQLContext, postId: string, first: number | null | undefined, after: string | null | undefined): Promise<Page<CommentRecord>> {
  const read = (cursor: string | null | undefined) => context.useCases.comments.list(postId, first, cursor);
  const page = await read(after);
  const hydrator = hydratorOf(context.loaders);
  return fillPage(pageSize(first), page, read, (next) => commentRules(next.items, context.viewerId, hydrator));
}

/** A home timeline's live event as the edge a page would show it, through the same hydration and rules: null when they leave it out. */
export async function postEdge(event: TimelineEntry, context: GraphQLContext, info: GraphQLResolveInfo): Promise<PostEdgeModel | null> {
  const params = { userId: context.viewerId!, args: {}, needs: context.feeds.hydrate ? postEdgeNeeds(info) : null };
  const [entry] = await shownEntries(context.useCases.feeds.home, toSkeleton({ entries: [event], hasNextPage: false }), params, feedContext(context));
  return entry && isShown(entry) ? entry : null;
}

const NO_PAGE: IdPage = { items: [], hasNextPage: false };

/**
 * A list's page of ids, read only when the selection shows it (`edges` or `pageInfo`): a connection
 * asked for its `totalCount` alone answers from the counts, with no read of the list. A page after a
 * cursor is read anyway: the store is what knows whether the cursor is one of its positions.
 */
export function pageIfShown(info: GraphQLResolveInfo, args: { first?: number | null; after?: string | null }, read: () => Promise<IdPage>): Promise<IdPage> {
  const shown = selectionTree(info, 1).fields;
  if (shown.has('edges') || shown.has('pageInfo') || args.after != null) return read();
  pageSize(args.first);
  return Promise.resolve(NO_PAGE);
}

/** A follow list's connection: its skeleton (a page of ids from the graph) hydrated, through the rules. */
export async function userConnection(page: IdPage, context: GraphQLContext, info: GraphQLResolveInfo, totalCount: () => Promise<number>): Promise<UserConnectionModel> {
  const needs = context.feeds.hydrate ? userListNeeds(info) : NO_USER_NEEDS;
  const hydrated = await hydrateUsers(page, context.viewerId, needs, hydratorOf(context.loaders));
  return { page: present(userRules(hydrated), page), totalCount };
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
 * Starts what the selection shows of the user beside the user's own lookup instead of after it:
 * its follow counts (in the user's BatchGetItem, or from the cache), the viewer's flags and relations with it, and
 * the skeletons of its timelines, so that a profile's header and a page's skeleton go out in the
 * request's first wave, with the account check. A read nobody uses (the user does not exist) cost
 * a lookup; fields left out by @skip or @include are not looked ahead for. A failed read is
 * reported only by the field that reads it.
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
