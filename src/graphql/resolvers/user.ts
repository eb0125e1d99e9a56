import type { UserRecord } from '../../domain/models.js';
import type { GraphQLContext } from '../context.js';
import { pageIfShown, userConnection, userTimelineConnection } from '../feeds.js';
import { notificationConnection } from '../notifications.js';
import type { UserResolvers } from '../generated/resolvers-types.js';
import { blockedAccounts, countedUserConnection } from './graph.js';

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
  followers: async (user, args, context, info) =>
    userConnection(
      await pageIfShown(info, args, () => context.useCases.follows.followers(user.id, args.first, args.after, context.graphBudget)),
      context,
      info,
      async () => (await context.loaders.followCounts.load(user.id)).followers,
    ),
  following: async (user, args, context, info) =>
    userConnection(
      await pageIfShown(info, args, () => context.useCases.follows.following(user.id, args.first, args.after, context.graphBudget)),
      context,
      info,
      async () => (await context.loaders.followCounts.load(user.id)).following,
    ),
  knownFollowers: async (user, { first, after }, context, info) =>
    countedUserConnection(await context.useCases.follows.knownFollowers(context.viewerId, user.id, first, after, context.graphBudget, blockedAccounts(context)), context, info),
  mutuals: async (user, { first, after }, context, info) =>
    countedUserConnection(await context.useCases.follows.mutuals(user.id, first, after, context.graphBudget, blockedAccounts(context)), context, info),
  posts: (user, args, context, info) => userTimelineConnection(context, info, 'posts', user.id, args),
  timeline: (user, args, context, info) => userTimelineConnection(context, info, 'timeline', user.id, args),
  viewerFollows: (user, _args, { loaders, viewerId }) => (viewerId ? loaders.follows.load({ from: viewerId, to: user.id }) : false),
  followsViewer: (user, _args, { loaders, viewerId }) => (viewerId ? loaders.follows.load({ from: user.id, to: viewerId }) : false),
  // Nobody blocks or mutes themselves: no lookup for the viewer's own account.
  viewerBlocks: (user, _args, { loaders, viewerId }) => (viewerId && viewerId !== user.id ? loaders.relations.load({ kind: 'blocks', from: viewerId, to: user.id }) : false),
  blocksViewer: (user, _args, { loaders, viewerId }) => (viewerId && viewerId !== user.id ? loaders.relations.load({ kind: 'blocks', from: user.id, to: viewerId }) : false),
  viewerMutes: (user, _args, { loaders, viewerId }) => (viewerId && viewerId !== user.id ? loaders.relations.load({ kind: 'mutes', from: viewerId, to: user.id }) : false),
  blockedUsers: async (user, { first, after }, context, info) =>
    userConnection(await context.useCases.relationships.list('blocks', context.viewerId, user.id, first, after, context.graphBudget), context, info, () =>
      context.useCases.relationships.count('blocks', user.id, context.graphBudget),
    ),
  mutedUsers: async (user, { first, after }, context, info) =>
    userConnection(await context.useCases.relationships.list('mutes', context.viewerId, user.id, first, after, context.graphBudget), context, info, () =>
      context.useCases.relationships.count('mutes', user.id, context.graphBudget),
    ),
  notifications: (user, args, context) => notificationConnection(context, user.id, args),
  unreadNotificationCount: (user, _args, { useCases, viewerId }) => useCases.notifications.unreadCount(viewerId, user.id),
};
