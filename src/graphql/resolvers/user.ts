import type { UserResolvers } from '../generated/resolvers-types.js';
import { countedUserConnection, userConnection } from './graph.js';
import { loadPostPage } from './post.js';

export const User: UserResolvers = {
  followerCount: async (user, _args, { loaders }) => (await loaders.followCounts.load(user.id)).followers,
  followingCount: async (user, _args, { loaders }) => (await loaders.followCounts.load(user.id)).following,
  followers: async (user, { first, after }, { useCases, loaders, graphBudget }) =>
    userConnection(await useCases.follows.followers(user.id, first, after, graphBudget), loaders, async () => (await loaders.followCounts.load(user.id)).followers),
  following: async (user, { first, after }, { useCases, loaders, graphBudget }) =>
    userConnection(await useCases.follows.following(user.id, first, after, graphBudget), loaders, async () => (await loaders.followCounts.load(user.id)).following),
  knownFollowers: async (user, { first, after }, { useCases, loaders, viewerId, graphBudget }) =>
    countedUserConnection(await useCases.follows.knownFollowers(viewerId, user.id, first, after, graphBudget), loaders),
  mutuals: async (user, { first, after }, { useCases, loaders, graphBudget }) =>
    countedUserConnection(await useCases.follows.mutuals(user.id, first, after, graphBudget), loaders),
  posts: async (user, { first, after }, { useCases, loaders }) => loadPostPage(await useCases.timelines.authorPosts(user.id, first, after), loaders),
  timeline: async (user, { first, after }, { useCases, loaders, viewerId }) =>
    loadPostPage(await useCases.timelines.home(viewerId, user.id, first, after), loaders),
  viewerFollows: (user, _args, { loaders, viewerId }) => (viewerId ? loaders.follows.load({ from: viewerId, to: user.id }) : false),
  followsViewer: (user, _args, { loaders, viewerId }) => (viewerId ? loaders.follows.load({ from: user.id, to: viewerId }) : false),
};
