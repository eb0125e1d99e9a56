import type { GraphQLResolveInfo } from 'graphql';
import type { CommentRecord, Page } from '../domain/models.js';
import { pageSize } from '../domain/validation.js';
import type { IdPage } from '../stores/graph/graph-store.js';
import { type FeedContext, fillPage, isShown, runFeed } from '../usecases/feeds/pipeline.js';
import {
  type PostNeeds,
  type PostRules,
  type SkeletonItem,
  type TimelineSkeleton,
  BLOCKS_ONLY,
  WITH_MUTES,
  commentRules,
  hydratePosts,
  postRules,
} from '../usecases/feeds/post-steps.js';
import { type UserNeeds, hydrateUserRelations, hydrateUsers, userRules } from '../usecases/feeds/user-steps.js';
import { hiddenUsers } from '../usecases/feeds/visibility.js';
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

/** How a post timeline reads on after a cursor when its rules leave a page short, and what they hide. */
export interface PostTimeline {
  /** The page size the client asked for. */
  first: number | null | undefined;
  readAfter: (cursor: string) => Promise<TimelineSkeleton>;
  rules: PostRules;
}

/** The feeds' view of the request: its viewer and its loaders. */
function feedContext(context: GraphQLContext): FeedContext {
  return { viewerId: context.viewerId, hydrator: hydratorOf(context.loaders) };
}

/** What each post of the page shows; null in the naive baseline (BATCHING=false), which reads each field on its own, uncached. */
function postNeedsOf(context: GraphQLContext, info: GraphQLResolveInfo): PostNeeds | null {
  return context.feeds.hydrate ? postNeeds(info) : null;
}

/** A post timeline's connection: its skeleton hydrated with what the selection shows, through the rules, read further while they leave the page short. */
export async function postConnection(skeleton: Promise<TimelineSkeleton>, context: GraphQLContext, info: GraphQLResolveInfo, timeline: PostTimeline): Promise<PostConnectionModel> {
  const page = await skeleton;
  const needs = postNeedsOf(context, info);
  const ctx = feedContext(context);
  const shown = async (next: TimelineSkeleton) => postRules(await hydratePosts(next, ctx, needs, timeline.rules), ctx, timeline.rules);
  // Paging backwards (pull-to-refresh) returns what is newer than the cursor as read: the rules may leave it short, and the client asks again from its start.
  if (page.hasPreviousPage !== undefined) return present((await shown(page)).filter(isShown), page);
  return fillPage(pageSize(timeline.first), page, timeline.readAfter, shown);
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
  const read = (cursor: string | null | undefined) => context.useCases.timelines.public(first, cursor);
  return postConnection(read(after), context, info, { first, readAfter: read, rules: WITH_MUTES });
}

/**
 * One of the user's post timelines. The rules leave every post of an author page empty when the
 * author is in a block with the viewer; the page then reads no further (the relation is cached
 * from its hydration).
 */
export function userTimelineConnection(context: GraphQLContext, info: GraphQLResolveInfo, field: UserTimeline, userId: string, args: PageArguments): Promise<PostConnectionModel> {
  const read = (cursor: string) => USER_TIMELINES[field](context, userId, { ...args, after: cursor });
  const readAfter =
    field === 'timeline'
      ? read
      : async (cursor: string) => ((await hiddenUsers(context.viewerId, [userId], false, hydratorOf(context.loaders))).size > 0 ? { items: [], hasNextPage: false } : read(cursor));
  return postConnection(userTimelineSkeleton(context, field, userId, args), context, info, {
    first: args.first,
    readAfter,
    rules: field === 'timeline' ? WITH_MUTES : BLOCKS_ONLY,
  });
}

/** A post's comments, oldest first, through the rules (no comment of an account in a block with the viewer), read further while they leave the page short. */
export async function commentConnection(context: GraphQLContext, postId: string, first: number | null | undefined, after: string | null | undefined): Promise<Page<CommentRecord>> {
  const read = (cursor: string | null | undefined) => context.useCases.comments.list(postId, first, cursor);
  const page = await read(after);
  const hydrator = hydratorOf(context.loaders);
  return fillPage(pageSize(first), page, read, (next) => commentRules(next.items, context.viewerId, hydrator));
}

/**
 * One timeline entry as an edge (a subscription's event), through the same hydration and rules as a
 * page: null when the rules leave it out (the post is gone).
 */
export async function postEdge(item: SkeletonItem, context: GraphQLContext, info: GraphQLResolveInfo): Promise<PostEdgeModel | null> {
  const needs = context.feeds.hydrate ? postEdgeNeeds(info) : null;
  const ctx = feedContext(context);
  const [entry] = await postRules(await hydratePosts({ items: [item], hasNextPage: false }, ctx, needs, WITH_MUTES), ctx, WITH_MUTES);
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

/** The user's post timelines, by the User field that pages through each. */
const USER_TIMELINES = {
  timeline: (context: GraphQLContext, userId: string, args: PageArguments) => context.useCases.timelines.homeTimeline(context.viewerId, userId, args),
  posts: (context: GraphQLContext, userId: string, args: PageArguments) => context.useCases.timelines.authorPosts(userId, args.first, args.after, args.includeReposts ?? true),
};

type UserTimeline = keyof typeof USER_TIMELINES;

interface PageArguments {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
  includeReposts?: boolean | null;
}

const skeletonKey = (field: UserTimeline, userId: string, args: PageArguments) =>
  JSON.stringify([field, userId, args.first ?? null, args.after ?? null, args.last ?? null, args.before ?? null, args.includeReposts ?? true]);

/** The skeleton of one of the user's timelines: the one started early (see startUserReads) or a new one. */
export function userTimelineSkeleton(context: GraphQLContext, field: UserTimeline, userId: string, args: PageArguments): Promise<TimelineSkeleton> {
  const key = skeletonKey(field, userId, args);
  const started = context.feeds.skeletons.get(key);
  if (started) return started;
  const skeleton = USER_TIMELINES[field](context, userId, args);
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
  for (const field of Object.keys(USER_TIMELINES) as UserTimeline[]) {
    let selections: Record<string, unknown>[];
    try {
      selections = childFieldArguments(info, 'User', field);
    } catch {
      // Arguments execution will refuse: the field reports that itself.
      continue;
    }
    for (const args of selections) userTimelineSkeleton(context, field, userId, args as PageArguments).catch(() => {});
  }
}
