import type { GraphQLResolveInfo } from 'graphql';
import type { Page, PageItem, PostRecord } from '../domain/models.js';
import type { IdPage } from '../stores/graph/graph-store.js';
import { type PostNeeds, type UserNeeds, hydratePosts, hydrateUsers, postRules, userRules } from '../usecases/feed-pipeline.js';
import type { SkeletonItem, TimelineSkeleton } from '../usecases/timelines.js';
import type { GraphQLContext } from './context.js';
import { hydratorOf } from './loaders.js';
import { childFieldArguments, postEdgeNeeds, postNeeds, userListNeeds } from './lookahead.js';
import type { UserConnectionModel } from './models.js';

/**
 * The GraphQL end of the feed pipeline (see usecases/feed-pipeline.ts): the skeleton's start,
 * hydration of what the selection shows, the rules, and presentation as a connection.
 */

const NO_POST_NEEDS: PostNeeds = { counts: false, viewerLiked: false, author: null };
const NO_USER_NEEDS: UserNeeds = { followCounts: false, viewerFollows: false, followsViewer: false };

/** Presentation: a page of what the rules kept, ending where the skeleton did (so that a page that lost entries still leads on). */
function present<T>(items: { cursor: string; node: T }[], skeleton: { items: { cursor: string }[]; hasNextPage: boolean; hasPreviousPage?: boolean }): Page<T> {
  return { items, hasNextPage: skeleton.hasNextPage, endCursor: skeleton.items.at(-1)?.cursor ?? null, hasPreviousPage: skeleton.hasPreviousPage };
}

/** A post timeline's connection: its skeleton hydrated with what the selection shows, through the rules. */
export async function postConnection(skeleton: Promise<TimelineSkeleton>, context: GraphQLContext, info: GraphQLResolveInfo): Promise<Page<PostRecord>> {
  const page = await skeleton;
  // The naive baseline (BATCHING=false) reads each field on its own, uncached: hydration would only add reads.
  const needs = context.feeds.hydrate ? postNeeds(info) : NO_POST_NEEDS;
  const hydrated = await hydratePosts(page, context.viewerId, needs, hydratorOf(context.loaders));
  return present(postRules(hydrated), page);
}

/**
 * One timeline entry as an edge (a subscription's event), through the same hydration and rules as a
 * page: null when the rules leave it out (the post is gone).
 */
export async function postEdge(item: SkeletonItem, context: GraphQLContext, info: GraphQLResolveInfo): Promise<PageItem<PostRecord> | null> {
  const needs = context.feeds.hydrate ? postEdgeNeeds(info) : NO_POST_NEEDS;
  const hydrated = await hydratePosts({ items: [item], hasNextPage: false }, context.viewerId, needs, hydratorOf(context.loaders));
  return postRules(hydrated)[0] ?? null;
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
  posts: (context: GraphQLContext, userId: string, args: PageArguments) => context.useCases.timelines.authorPosts(userId, args.first, args.after),
};

type UserTimeline = keyof typeof USER_TIMELINES;

interface PageArguments {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

const skeletonKey = (field: UserTimeline, userId: string, args: PageArguments) =>
  JSON.stringify([field, userId, args.first ?? null, args.after ?? null, args.last ?? null, args.before ?? null]);

/** The skeleton of one of the user's timelines: the one started early (see startUserTimelines) or a new one. */
export function userTimelineSkeleton(context: GraphQLContext, field: UserTimeline, userId: string, args: PageArguments): Promise<TimelineSkeleton> {
  const key = skeletonKey(field, userId, args);
  const started = context.feeds.skeletons.get(key);
  if (started) return started;
  const skeleton = USER_TIMELINES[field](context, userId, args);
  context.feeds.skeletons.set(key, skeleton);
  return skeleton;
}

/**
 * Starts the skeletons of the user's timelines that the selection asks for, beside the user's
 * own lookup instead of after it: a page's skeleton then goes out in the request's first wave,
 * with the account check. A skeleton nobody reads (the user does not exist, or the field is
 * skipped) cost a read, and its failure is reported only by the field that reads it.
 */
export function startUserTimelines(context: GraphQLContext, info: GraphQLResolveInfo, userId: string): void {
  if (!context.feeds.hydrate) return;
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
