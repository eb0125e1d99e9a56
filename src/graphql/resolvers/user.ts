import type { UserRecord } from '../../domain/models.js';
import type { GraphQLContext } from '../context.js';
import { userConnection, postConnection, userTimelineSkeleton } from '../feeds.js';
import type { UserResolvers } from '../generated/resolvers-types.js';
import { countedUserConnection } from './graph.js';

/**
 * A user by id. A query's own viewer comes from its account check, which runs beside the query
 * and reads strongly consistent what an eventually consistent read missed (an account created
 * a moment ago); everyone else, and the viewer of a mutation (checked before it ran), from the loader.
 */
export function userById(context: GraphQLContext, id: string): Promise<UserRecord | null> {
  return id === context.viewerId && context.accountCheck ? context.accountCheck : context.loaders.user.load(id);
}

export const User: UserResolvers = {
  followerCount: async (user, _args, { loaders }) => (await loaders.followCounts.load(user.id)).followers,
  followingCount: async (user, _args, { loaders }) => (await loaders.followCounts.load(user.id)).following,
  followers: async (user, { first, after }, context, info) =>
    userConnection(await context.useCases.follows.followers(user.id, first, after, context.graphBudget), context, info, async () => (await context.loaders.followCounts.load(user.id)).followers),
  following: async (user, { first, after }, context, info) =>
    userConnection(await context.useCases.follows.following(user.id, first, after, context.graphBudget), context, info, async () => (await context.loaders.followCounts.load(user.id)).following),
  knownFollowers: async (user, { first, after }, context, info) =>
    countedUserConnection(await context.useCases.follows.knownFollowers(context.viewerId, user.id, first, after, context.graphBudget), context, info),
  mutuals: async (user, { first, after }, context, info) => countedUserConnection(await context.useCases.follows.mutuals(user.id, first, after, context.graphBudget), context, info),
  posts: (user, args, context, info) => postConnection(userTimelineSkeleton(context, 'posts', user.id, args), context, info),
  timeline: (user, args, context, info) => postConnection(userTimelineSkeleton(context, 'timeline', user.id, args), context, info),
  viewerFollows: (user, _args, { loaders, viewerId }) => (viewerId ? loaders.follows.load({ from: viewerId, to: user.id }) : false),
  followsViewer: (user, _args, { loaders, viewerId }) => (viewerId ? loaders.follows.load({ from: user.id, to: viewerId }) : false),
};
