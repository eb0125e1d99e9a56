import type { MutationResolvers } from '../generated/resolvers-types.js';
import { notImplemented } from './not-implemented.js';

export const Mutation: MutationResolvers = {
  signUp: async (_parent, { input }, { useCases, loaders, tokens }) => {
    const user = await useCases.users.signUp(input);
    loaders.user.prime(user.id, user);
    return { user, token: await tokens.issue(user.id) };
  },

  updateProfile: async (_parent, { input }, { useCases, viewerId, loaders }) => {
    const user = await useCases.users.updateProfile(viewerId, input);
    loaders.user.clear(user.id).prime(user.id, user);
    return user;
  },

  follow: () => notImplemented('Mutation.follow'),
  unfollow: () => notImplemented('Mutation.unfollow'),
  createPost: () => notImplemented('Mutation.createPost'),
  deletePost: () => notImplemented('Mutation.deletePost'),
  likePost: () => notImplemented('Mutation.likePost'),
  unlikePost: () => notImplemented('Mutation.unlikePost'),
  viewPost: () => notImplemented('Mutation.viewPost'),
  react: () => notImplemented('Mutation.react'),
  addComment: () => notImplemented('Mutation.addComment'),
};
