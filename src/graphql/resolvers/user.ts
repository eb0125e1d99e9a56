import type { UserRecord } from '../../domain/models.js';
import type { GraphQLContext } from '../context.js';
import { userListConnection, userTimelineConnection } from '../feeds.js';
import { notificationConnection } from '../notifications.js';
import type { UserResolvers } from '../generated/resolvers-types.js';

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
  followers: (user, args, context, info) =>
    userListConnection(context, info, { kind: 'followers', userId: user.id }, args),
  following: (user, args, context, info) =>
    userListConnection(context, info, { kind: 'following', userId: user.id }, args),
  knownFollowers: (user, args, context, info) =>
    userListConnection(context, info, { kind: 'knownFollowers', userId: user.id }, args),
  mutuals: (user, args, context, info) => userListConnection(context, info, { kind: 'mutuals', userId: user.id }, args),
  posts: (user, args, context, info) => userTimelineConnection(context, info, 'posts', user.id, args),
  timeline: (user, args, context, info) => userTimelineConnection(context, info, 'timeline', user.id, args),
  viewerFollows: (user, _args, { loaders, viewerId }) =>
    viewerId ? loaders.follows.load({ from: viewerId, to: user.id }) : false,
  followsViewer: (user, _args, { loaders, viewerId }) =>
    viewerId ? loaders.follows.load({ from: user.id, to: viewerId }) : false,
  // Nobody blocks or mutes themselves: no lookup for the viewer's own account.
  viewerBlocks: (user, _args, { loaders, viewerId }) =>
    viewerId && viewerId !== user.id ? loaders.relations.load({ kind: 'blocks', from: viewerId, to: user.id }) : false,
  blocksViewer: (user, _args, { loaders, viewerId }) =>
    viewerId && viewerId !== user.id ? loaders.relations.load({ kind: 'blocks', from: user.id, to: viewerId }) : false,
  viewerMutes: (user, _args, { loaders, viewerId }) =>
    viewerId && viewerId !== user.id ? loaders.relations.load({ kind: 'mutes', from: viewerId, to: user.id }) : false,
  blockedUsers: (user, args, context, info) =>
    userListConnection(context, info, { kind: 'blockedUsers', userId: user.id }, args),
  mutedUsers: (user, args, context, info) =>
    userListConnection(context, info, { kind: 'mutedUsers', userId: user.id }, args),
  notifications: (user, args, context) => notificationConnection(context, user.id, args),
  unreadNotificationCount: (user, _args, { useCases, viewerId }) =>
    useCases.notifications.unreadCount(viewerId, user.id),
};
